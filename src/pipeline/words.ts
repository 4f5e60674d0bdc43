// Word timestamps from token timestamps: a word starts at a token whose text begins with a space
// (whisper's BPE convention) and runs until the next such token.
import type { TranscriptSegment } from '../engine/transcript.js';

export interface Word {
  word: string;
  start: number;
  end: number;
  speaker?: string;
}

export function wordsFromSegments(segments: TranscriptSegment[]): Word[] {
  const words: Word[] = [];
  let current: Word | null = null;
  for (const segment of segments) {
    for (const token of segment.tokens) {
      if (token.special || token.text === '') continue;
      const start = token.start ?? segment.start;
      const end = token.end ?? segment.end;
      const startsWord = current === null || /^\s/.test(token.text);
      if (startsWord) {
        if (current && current.word.trim() !== '') words.push(current);
        current = { word: token.text.trimStart(), start, end: Math.max(end, start) };
      } else if (current) {
        current.word += token.text;
        current.end = Math.max(current.end, end);
      }
    }
    // A segment boundary always ends a word.
    if (current && current.word.trim() !== '') words.push(current);
    current = null;
  }
  return words.map((w) => ({ ...w, word: w.word.trim() }));
}
