// Word timestamps from token timestamps. A word starts at a token whose text begins with a space
// (whisper's BPE convention) and runs until the next such token; a segment boundary always ends one.
// Tokens holding only part of a UTF-8 character have empty text (the character arrives with the
// token that completes it), so words are joined on byte boundaries and never split a character.
// Where the model has DTW alignment heads, a word starts at its first token's DTW time, which
// follows the audio more closely than whisper's timestamp-token interpolation.
// Times are clamped to the segment, and words are made monotonic and non-overlapping.
import type { TranscriptSegment, TranscriptToken } from '../engine/transcript.js';

export interface Word {
  word: string;
  start: number;
  end: number;
  /**
   * The mean probability the decoder gave the word's tokens (faster-whisper's `probability`): a model
   * probability, not a calibrated accuracy; absent where the tokens are gone (a shaped transcript's words keep theirs).
   */
  confidence?: number;
}

/** A word and the tokens of its segment that spell it ([tokenFrom, tokenTo)). */
export interface SegmentWord extends Word {
  tokenFrom: number;
  tokenTo: number;
}

/** The words of one segment, in order; times within the segment and non-overlapping. */
export function wordsOfSegment(segment: TranscriptSegment): SegmentWord[] {
  const words: SegmentWord[] = [];
  let current: SegmentWord | null = null;
  for (const [index, token] of segment.tokens.entries()) {
    if (token.special || token.text === '') {
      if (current && !token.special) current.tokenTo = index + 1;
      continue;
    }
    const start = token.dtw ?? token.start ?? segment.start;
    const end = token.end ?? segment.end;
    if (current === null || /^\s/.test(token.text)) {
      if (current) words.push(current);
      current = { word: token.text, start, end: Math.max(end, start), tokenFrom: index, tokenTo: index + 1 };
    } else {
      current.word += token.text;
      current.end = Math.max(current.end, end);
      current.tokenTo = index + 1;
    }
  }
  if (current) words.push(current);
  let previousEnd = segment.start;
  const out: SegmentWord[] = [];
  for (const w of words) {
    const text = w.word.trim();
    if (text === '') continue;
    const start = Math.min(Math.max(w.start, previousEnd, segment.start), segment.end);
    const end = Math.min(Math.max(w.end, start), segment.end);
    out.push({ ...w, word: text, start, end, confidence: meanProbability(segment, w.tokenFrom, w.tokenTo) });
    previousEnd = end;
  }
  return out;
}

/** The mean probability of the text tokens in [from, to): a word's confidence. */
function meanProbability(segment: TranscriptSegment, from: number, to: number): number {
  return meanTokenProbability(segment.tokens.slice(from, to)) ?? 0;
}

/** The mean probability the decoder gave the text (not special) tokens: a word's, segment's or turn's confidence; null without any. */
export function meanTokenProbability(tokens: readonly Pick<TranscriptToken, 'p' | 'special'>[]): number | null {
  const text = tokens.filter((t) => !t.special);
  return text.length ? text.reduce((sum, t) => sum + t.p, 0) / text.length : null;
}

/** Every segment's words, in order. */
export function wordsFromSegments(segments: TranscriptSegment[]): Word[] {
  return nonOverlapping(segments.flatMap((segment) => wordsOfSegment(segment).map(({ word, start, end, confidence }) => ({ word, start, end, confidence }))));
}

/**
 * Words across segments in time order, none overlapping the one before: segments of one run never
 * overlap, but a later run's first segment may start inside the last.
 */
export function nonOverlapping<W extends Word>(words: W[]): W[] {
  let previousEnd = 0;
  return words.map((w) => {
    const start = Math.max(w.start, previousEnd);
    const end = Math.max(w.end, start);
    previousEnd = end;
    return { ...w, start, end };
  });
}
