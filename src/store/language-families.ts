// The contract's language families. Declared here, the lowest layer that needs them: a key's default
// language and its dictionaries are stored per family, and the pipeline (src/pipeline/languages.ts)
// maps request tags onto the same list.

export const LANGUAGE_FAMILIES = ['en', 'es', 'pt', 'fr', 'de', 'nl', 'ar', 'hi'] as const;
export type LanguageFamily = (typeof LANGUAGE_FAMILIES)[number];

export function isLanguageFamily(value: string): value is LanguageFamily {
  return (LANGUAGE_FAMILIES as readonly string[]).includes(value);
}
