// Vocabulary lists (docs/DESIGN.md decision 3): up to 1,000 terms of up to 96 characters; at most 30 when
// the effective language is auto, Arabic or Hindi.
import { hasRefusedCharacter } from '../domain/refused-characters.js';
import type { LanguageChoice } from './language-stage.js';
import { SMALL_VOCABULARY_LANGUAGES } from './languages.js';
import { UnprocessableRequest } from './pipeline-errors.js';

export const MAX_TERMS = 1000;
export const MAX_TERMS_SMALL = 30;
export const MAX_TERM_LENGTH = 96;

const unprocessable = (message: string) => new UnprocessableRequest(message);

/**
 * The language a vocabulary's limits are judged by. A dominant (detected) language is one language for
 * the whole recording, like a given one: only per-utterance detection (`auto`) makes prompting fragile
 * enough for the smaller cap.
 */
export function vocabularyLanguageOf(choice: LanguageChoice): string {
  if (choice.mode === 'explicit') return choice.language.family;
  return choice.mode === 'auto' ? 'auto' : choice.mode;
}

export function termLimitFor(vocabularyLanguage: string): number {
  return (SMALL_VOCABULARY_LANGUAGES as readonly string[]).includes(vocabularyLanguage) ? MAX_TERMS_SMALL : MAX_TERMS;
}

/** Why a (trimmed) term is not acceptable, or null: the one rule for request and stored terms. */
export function termProblem(term: string): string | null {
  if (term.length === 0) return 'vocabulary terms must not be empty';
  if ([...term].length > MAX_TERM_LENGTH) return `vocabulary terms are at most ${MAX_TERM_LENGTH} characters`;
  if (hasRefusedCharacter(term)) return 'vocabulary terms must not contain control or bidirectional control characters';
  return null;
}

export function validateTerms(value: unknown, effectiveLanguage: string): string[] {
  if (!Array.isArray(value)) throw unprocessable('vocabulary must be a JSON array of strings');
  const limit = termLimitFor(effectiveLanguage);
  if (value.length > limit) throw unprocessable(`vocabulary allows at most ${limit} terms for this language`);
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const item of value) {
    if (typeof item !== 'string') throw unprocessable('vocabulary terms must be strings');
    const term = item.trim();
    const problem = termProblem(term);
    if (problem) throw unprocessable(problem);
    const key = term.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      terms.push(term);
    }
  }
  return terms;
}

/** The multipart field: a JSON array string. */
export function parseVocabulary(raw: string | undefined, effectiveLanguage: string): string[] {
  if (raw === undefined || raw === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw unprocessable('vocabulary must be a JSON array of strings');
  }
  return validateTerms(value, effectiveLanguage);
}
