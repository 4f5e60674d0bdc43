// Conservative surface corrections (the audit's corrected_terms): where the transcript spells a
// caller's term almost right ("metoprolal" for "Metoprolol"), the caller's exact spelling replaces it.
// Only when all of these hold:
//   - the term is not already in the text (case-insensitively) and has no digit;
//   - a run of the term's number of words (or one more: "metro prolol") has the term's phonetic key
//     (phonetic-key.ts), spaces aside;
//   - the spellings differ by at most max(1, floor(length / 5)) edits (lower case, spaces removed);
//   - the run holds no number (digits or spoken), unit, date, negation or laterality word: a
//     correction never touches what the safety check protects.
// Punctuation around the run is kept. The replaced word keeps its time: the first token carries the
// term and the run's end time, the others become empty.
import { safetyFacts } from '../clinical-text/safety-facts.js';
import { textWords } from '../clinical-text/spoken-numbers.js';
import type { TranscriptToken } from '../engine/transcript.js';
import { editDistance } from './edit-distance.js';
import { phoneticKey } from './phonetic-key.js';
import type { RecognisedSegment } from './recognised-segment.js';
import { containsTerm } from './term-presence.js';
import { wordsOfSegment } from './words.js';

export interface TermCorrection {
  term: string;
  /** What the transcript said. */
  replaced: string;
  start: number;
  end: number;
}

export function maxCorrectionEdits(term: string): number {
  return Math.max(1, Math.floor(spelling(term).length / 5));
}

function spelling(text: string): string {
  return textWords(text)
    .map((w) => w.text)
    .join('');
}

function touchesSafetyFacts(text: string): boolean {
  const facts = safetyFacts(text);
  return Object.values(facts).some((list) => list.length > 0);
}

export function correctTerms(segments: RecognisedSegment[], terms: readonly string[]): { segments: RecognisedSegment[]; corrections: TermCorrection[] } {
  const text = segments.map((s) => s.text).join(' ');
  const candidates = terms.filter((t) => !/\p{N}/u.test(t) && spelling(t) !== '' && !containsTerm(text, t));
  if (candidates.length === 0) return { segments, corrections: [] };
  const corrections: TermCorrection[] = [];
  const out = segments.map((segment) => {
    let current = segment;
    for (const term of candidates) current = correctInSegment(current, term, corrections);
    return current;
  });
  return { segments: out, corrections };
}

function correctInSegment(segment: RecognisedSegment, term: string, corrections: TermCorrection[]): RecognisedSegment {
  const termSpelling = spelling(term);
  const termKey = phoneticKey(term);
  const termWords = textWords(term).length;
  const limit = maxCorrectionEdits(term);
  const words = wordsOfSegment(segment);
  let tokens: TranscriptToken[] | null = null;
  for (let i = 0; i < words.length; i++) {
    for (const span of [termWords, termWords + 1]) {
      if (i + span > words.length) continue;
      const run = words.slice(i, i + span);
      const runText = run.map((w) => w.word).join(' ');
      const runSpelling = spelling(runText);
      if (runSpelling === '' || phoneticKey(runText) !== termKey) continue;
      if (editDistance(runSpelling, termSpelling) > limit || touchesSafetyFacts(runText)) continue;
      tokens ??= segment.tokens.map((t) => ({ ...t }));
      const from = run[0].tokenFrom;
      const to = run[run.length - 1].tokenTo;
      const original = segment.tokens
        .slice(from, to)
        .map((t) => t.text)
        .join('');
      const lead = /^\s*[^\p{L}\p{N}]*/u.exec(original)?.[0] ?? '';
      const trail = /[^\p{L}\p{N}]*$/u.exec(original)?.[0] ?? '';
      tokens[from] = { ...tokens[from], text: `${lead}${term}${trail}`, end: segment.tokens[to - 1].end ?? tokens[from].end };
      for (let k = from + 1; k < to; k++) tokens[k] = { ...tokens[k], text: '' };
      corrections.push({ term, replaced: original.trim(), start: run[0].start, end: run[run.length - 1].end });
      i += span - 1;
      break;
    }
  }
  if (!tokens) return segment;
  return {
    ...segment,
    tokens,
    text: tokens
      .filter((t) => !t.special)
      .map((t) => t.text)
      .join(''),
  };
}
