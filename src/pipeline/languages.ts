// How a BCP-47 tag maps onto the contract's language families, and what each family supports.
// The families themselves are the store's (keys keep defaults and dictionaries per family); the
// pipeline's modules and callers get them from here with the rest of the language rules.
import { isLanguageFamily, LANGUAGE_TAG_SYNTAX, type LanguageFamily } from '../store/language-families.js';

export { LANGUAGE_FAMILIES, isLanguageFamily, type LanguageFamily } from '../store/language-families.js';

/** Families whose word timing is available; the others report speakers through speaker_segments. */
export const WORD_TIMING_FAMILIES: readonly LanguageFamily[] = ['en', 'es', 'pt', 'fr', 'de', 'nl'];

/** Vocabulary lists are capped lower where detection or script makes prompting fragile (DESIGN.md 3). */
/** The most candidate languages `language_hints` may name. */
export const MAX_LANGUAGE_HINTS = 8;

export const SMALL_VOCABULARY_LANGUAGES = ['auto', 'ar', 'hi'] as const;

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
