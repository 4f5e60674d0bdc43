// The contract's language families and how a BCP-47 tag maps onto them.

export const LANGUAGE_FAMILIES = ['en', 'es', 'pt', 'fr', 'de', 'nl', 'ar', 'hi'] as const;
export type LanguageFamily = (typeof LANGUAGE_FAMILIES)[number];

/** Families whose word timing is available; the others report speakers through speaker_segments. */
export const WORD_TIMING_FAMILIES: readonly LanguageFamily[] = ['en', 'es', 'pt', 'fr', 'de', 'nl'];

/** Vocabulary lists are capped lower where detection or script makes prompting fragile (DESIGN.md 3). */
export const SMALL_VOCABULARY_LANGUAGES = ['auto', 'ar', 'hi'] as const;

export interface LanguageTag {
  /** Normalized tag: lowercase family, uppercase region (`en-GB`), digits kept (`es-419`). */
  tag: string;
  family: LanguageFamily;
}

const TAG = /^([A-Za-z]{2})(?:-([A-Za-z]{2}|\d{3}))?$/;

export function isLanguageFamily(value: string): value is LanguageFamily {
  return (LANGUAGE_FAMILIES as readonly string[]).includes(value);
}

/** A supported family or regional tag, normalized; null for malformed or unsupported tags. */
export function parseLanguageTag(raw: string): LanguageTag | null {
  const m = TAG.exec(raw.trim());
  if (!m) return null;
  const family = m[1].toLowerCase();
  if (!isLanguageFamily(family)) return null;
  return { tag: m[2] ? `${family}-${m[2].toUpperCase()}` : family, family };
}
