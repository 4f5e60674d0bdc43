// A text read once for every detector: its words with their offsets, the same text folded in place
// (lower case, no accents, offsets unchanged) for the lexicons, and its runs of digits.
import { type NumberRun, numberRuns } from './number-runs.js';
import { foldInPlace } from './redaction-spans.js';
import { fold, type TextWord } from './spoken-numbers.js';

export interface TextAnalysis {
  text: string;
  /** `text` folded character by character: the same offsets. */
  lower: string;
  /** Words, folded; `text.slice(from, to)` is the word as written. */
  words: TextWord[];
  runs: NumberRun[];
}

export function analyse(text: string): TextAnalysis {
  const words = redactionWords(text);
  return { text, lower: foldInPlace(text), words, runs: numberRuns(text, words) };
}

/** The index of the first word that starts at or after `offset` (words.length if none). */
export function wordAt(words: readonly TextWord[], offset: number): number {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (words[mid].from < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether the word is written with a capital first letter (scripts without case never are). */
export const isCapitalised = (raw: string) => /^\p{Lu}/u.test(raw);

/**
 * Words as spoken-numbers.ts's textWords reads them, with combining marks kept inside a word: Devanagari
 * vowel signs and Arabic vowel marks are marks, and a word must not end before them ("राहुल" is one word).
 */
export function redactionWords(text: string): TextWord[] {
  const words: TextWord[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*(?:['’][\p{L}\p{M}]+|\.\p{N}+)*|%/gu)) {
    words.push({ text: fold(m[0]), from: m.index, to: m.index + m[0].length });
  }
  return words;
}
