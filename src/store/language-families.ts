// The contract's language families. Declared here, the lowest layer that needs them: a key's default
// language and its dictionaries are stored per family, and the pipeline (src/pipeline/languages.ts)
// maps request tags onto the same list.

export const LANGUAGE_FAMILIES = ['en', 'es', 'pt', 'fr', 'de', 'nl', 'ar', 'hi'] as const;
export type LanguageFamily = (typeof LANGUAGE_FAMILIES)[number];

/** A region subtag: two letters (`GB`) or three digits (`419`), as a regular expression source. */
export const LANGUAGE_REGION_SYNTAX = '[A-Za-z]{2}|[0-9]{3}';

/** A family or regional tag (`en`, `en-GB`, `es-419`), any case: group 1 the family, group 2 the region. */
export const LANGUAGE_TAG_SYNTAX = new RegExp(`^([A-Za-z]{2})(?:-(${LANGUAGE_REGION_SYNTAX}))?$`);

export function isLanguageFamily(value: string): value is LanguageFamily {
  return (LANGUAGE_FAMILIES as readonly string[]).includes(value);
}
