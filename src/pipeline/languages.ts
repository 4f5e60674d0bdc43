// What each language family supports in the pipeline. The families and the tag syntax are domain
// words (src/domain/language-families.ts).
import type { LanguageFamily } from '../domain/language-families.js';

/** Families whose word timing is available; the others report speakers through speaker_segments. */
export const WORD_TIMING_FAMILIES: readonly LanguageFamily[] = ['en', 'es', 'pt', 'fr', 'de', 'nl'];

/** The most candidate languages `language_hints` may name. */
export const MAX_LANGUAGE_HINTS = 8;

/** Vocabulary lists are capped lower where detection or script makes prompting fragile (docs/DESIGN.md decision 3). */
export const SMALL_VOCABULARY_LANGUAGES = ['auto', 'ar', 'hi'] as const;
