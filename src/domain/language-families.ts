// The contract's language families and the tags that name them (`en`, `en-GB`, `es-419`). A key's
// default language and its dictionaries are stored per family, requests and realtime sessions name
// tags, and the pipeline's language rules (src/pipeline/languages.ts) are kept per family.

export const LANGUAGE_FAMILIES = ['en', 'es', 'pt', 'fr', 'de', 'nl', 'ar', 'hi'] as const;
export type LanguageFamily = (typeof LANGUAGE_FAMILIES)[number];

/** A region subtag: two letters (`GB`) or three digits (`419`), as a regular expression source. */
export const LANGUAGE_REGION_SYNTAX = '[A-Za-z]{2}|[0-9]{3}';

/** A family or regional tag (`en`, `en-GB`, `es-419`), any case: group 1 the family, group 2 the region. */
export const LANGUAGE_TAG_SYNTAX = new RegExp(`^([A-Za-z]{2})(?:-(${LANGUAGE_REGION_SYNTAX}))?$`);

export function isLanguageFamily(value: string): value is LanguageFamily {
  return (LANGUAGE_FAMILIES as readonly string[]).includes(value);
}

export interface LanguageTag {
  /** Normalized tag: lowercase family, uppercase region (`en-GB`), digits kept (`es-419`). */
  tag: string;
  family: LanguageFamily;
}

/** A supported family or regional tag, normalized; null for malformed or unsupported tags. */
export function parseLanguageTag(raw: string): LanguageTag | null {
  const m = LANGUAGE_TAG_SYNTAX.exec(raw.trim());
  if (!m) return null;
  const family = m[1].toLowerCase();
  if (!isLanguageFamily(family)) return null;
  return { tag: m[2] ? `${family}-${m[2].toUpperCase()}` : family, family };
}

/** What a refused tag is told: the families and the forms a tag may take. */
export const SUPPORTED_LANGUAGE_TAGS = `one of the families ${LANGUAGE_FAMILIES.join(', ')}, or one with a region (e.g. en-GB, es-419)`;
