// Candidate spans from the detectors, and the one set of entities they settle into: where two overlap
// the more certain detector wins (a cue or a checked shape before a lexicon guess), then the longer.
import type { RedactionClass } from './redaction-classes.js';
import { fold } from './spoken-numbers.js';

/** A found identifier: character offsets into the text (JavaScript string indices), end exclusive. */
export interface RedactionEntity {
  type: RedactionClass;
  start: number;
  end: number;
}

/** Higher is more certain: structural shapes, then cued values, then patterns, then lexicon and NLP guesses. */
export const CERTAINTY = { shape: 4, cue: 3, pattern: 2, guess: 1 } as const;

export interface Candidate extends RedactionEntity {
  certainty: number;
}

/** Non-overlapping entities in text order; same-class neighbours with only spaces between are one entity. */
export function settle(candidates: readonly Candidate[], text: string): RedactionEntity[] {
  const ordered = [...candidates].filter((c) => c.end > c.start).sort((a, b) => b.certainty - a.certainty || b.end - b.start - (a.end - a.start));
  const kept: Candidate[] = [];
  // Which characters a kept entity covers: an hour of transcript has thousands of candidates.
  const taken = new Uint8Array(text.length);
  for (const c of ordered) {
    if (taken.subarray(c.start, c.end).some((x) => x === 1)) continue;
    taken.fill(1, c.start, c.end);
    kept.push(c);
  }
  kept.sort((a, b) => a.start - b.start);
  const out: RedactionEntity[] = [];
  for (const { type, start, end } of kept) {
    const last = out.at(-1);
    if (last && last.type === type && /^[ \t]*$/.test(text.slice(last.end, start))) last.end = end;
    else out.push({ type, start, end });
  }
  return out;
}

/**
 * The text lower-cased and accent-folded character by character, so offsets into it are offsets into
 * the text: a character whose folded form is not one character (a ligature, a Devanagari vowel sign,
 * which folding would drop) stays as it is, lower-cased. Lexicon phrases are folded the same way.
 */
export function foldInPlace(text: string): string {
  let out = '';
  for (const ch of text) {
    let folded = FOLDED.get(ch);
    if (folded === undefined) {
      const f = fold(ch);
      folded = f.length === ch.length ? f : ch.toLowerCase().length === ch.length ? ch.toLowerCase() : ch;
      if (FOLDED.size < FOLDED_KEPT) FOLDED.set(ch, folded);
    }
    out += folded;
  }
  return out;
}

/** Each character's folded form, computed once: a text is mostly the same few dozen characters. */
const FOLDED = new Map<string, string>();
/** A text of every character there is must not grow the cache without end. */
const FOLDED_KEPT = 4096;

/** Letters and digits, Unicode-wide: the edges of a word in the lexicon's regular expressions. */
export const WORD_START = '(?<![\\p{L}\\p{N}\\p{M}])';
export const WORD_END = '(?![\\p{L}\\p{N}\\p{M}])';

/** A regular expression source matching any of `phrases` (folded in place) as whole words, longest first. */
export function phrasesSource(phrases: Iterable<string>): string {
  const escaped = [...new Set([...phrases].map(foldInPlace))]
    .sort((a, b) => b.length - a.length)
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+'));
  return `${WORD_START}(?:${escaped.join('|')})${WORD_END}`;
}
