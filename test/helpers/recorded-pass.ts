// Recorded engine outputs for wording-dependent tests (the vocabulary check and audit): a decode's
// segments, with one token per word and its probability, in the engine's Transcript shape. The
// engine itself, including the context-free check decode, is tested against whisper.cpp in
// test/engine/context-free-check.test.ts.
import type { Transcript, TranscriptSegment } from '../../src/engine/transcript.js';

export interface RecordedSegment {
  text: string;
  start: number;
  end: number;
  /** Probability of every token of the segment (default 0.9), or one per word. */
  p?: number | number[];
}

export function recordedSegment(segment: RecordedSegment): TranscriptSegment {
  const words = segment.text.match(/\s*\S+/g) ?? [];
  const step = (segment.end - segment.start) / Math.max(1, words.length);
  return {
    start: segment.start,
    end: segment.end,
    text: words.join(''),
    noSpeechProb: 0.01,
    speakerTurnNext: false,
    tokens: words.map((word, i) => {
      const p = Array.isArray(segment.p) ? segment.p[i] : (segment.p ?? 0.9);
      return {
        id: 1000 + i,
        text: word,
        bytes: new TextEncoder().encode(word),
        p,
        logprob: Math.log(p),
        start: segment.start + i * step,
        end: segment.start + (i + 1) * step,
        dtw: null,
        special: false,
      };
    }),
  };
}

export function recordedPass(segments: RecordedSegment[], extra: Partial<Transcript> = {}): Transcript {
  const shaped = segments.map(recordedSegment);
  const duration = Math.max(1, ...segments.map((s) => s.end));
  return {
    text: shaped
      .map((s) => s.text)
      .join('')
      .trim(),
    language: 'en',
    languageProbability: null,
    durationSeconds: duration,
    segments: shaped,
    timings: { totalMs: 0, setupMs: 0, detectMs: 0, melMs: 0, encodeMs: 0, decodeMs: 0, encoderRuns: 1, decoderSteps: 0, checkMs: 0, heldMs: 0 },
    ...extra,
  };
}
