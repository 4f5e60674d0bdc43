// Turns the addon's raw result into the engine's transcript: decoded text, times clamped to the
// audio (random or hallucinating decoders emit timestamps past the end or of zero length).
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { NativeCheckPass, NativeSegment, NativeTimings, NativeTranscribeResult } from './native-addon.js';
import { Utf8Assembler } from './utf8-text.js';

export interface TranscriptToken {
  id: number;
  /** Text this token completes (empty for a token holding only part of a character). */
  text: string;
  /** The token's raw bytes, for callers that need them. */
  bytes: Uint8Array;
  p: number;
  logprob: number;
  /** Seconds, clamped to the audio; null when token timestamps were not computed. */
  start: number | null;
  end: number | null;
  /** DTW-aligned time in seconds, null when DTW is off. */
  dtw: number | null;
  special: boolean;
}

export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
  noSpeechProb: number;
  speakerTurnNext: boolean;
  tokens: TranscriptToken[];
}

export interface Transcript {
  text: string;
  language: string;
  languageProbability: number | null;
  durationSeconds: number;
  segments: TranscriptSegment[];
  timings: NativeTimings;
  /** The context-free check's transcript (contextFreeCheck): no token timing, no DTW. */
  check?: Transcript & { capped: boolean };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}

function clampTime(seconds: number, duration: number): number | null {
  return seconds < 0 ? null : clamp(seconds, 0, duration);
}

export function shapeTranscript(raw: NativeTranscribeResult, sampleCount: number): Transcript {
  const duration = sampleCount / SAMPLE_RATE;
  const segments = shapeSegments(raw.segments, sampleCount);
  return {
    text: segments
      .map((s) => s.text)
      .join('')
      .trim(),
    language: raw.language,
    languageProbability: raw.languageProbability,
    durationSeconds: duration,
    segments,
    timings: raw.timings,
    ...(raw.check ? { check: { ...shapeTranscript(checkAsResult(raw.check, raw), sampleCount), capped: raw.check.capped } } : {}),
  };
}

/** The addon's segments with text decoded and times clamped to the audio's `sampleCount` samples. */
export function shapeSegments(raw: readonly NativeSegment[], sampleCount: number): TranscriptSegment[] {
  const duration = sampleCount / SAMPLE_RATE;
  // One assembler across segments: a character split at a segment boundary still joins.
  const text = new Utf8Assembler();
  const segments = raw.map((segment: NativeSegment) => {
    const start = clamp(segment.t0, 0, duration);
    const end = clamp(Math.max(segment.t1, start), start, duration);
    let segmentText = '';
    const tokens = segment.tokens.map((token): TranscriptToken => {
      // Special tokens (timestamps, <|endoftext|>, ...) are markup, not transcript text.
      const tokenText = token.special ? '' : text.push(token.bytes);
      segmentText += tokenText;
      return {
        id: token.id,
        text: tokenText,
        bytes: token.bytes,
        p: token.p,
        logprob: token.plog,
        start: clampTime(token.t0, duration),
        end: clampTime(token.t1, duration),
        dtw: clampTime(token.tDtw, duration),
        special: token.special,
      };
    });
    return {
      start,
      end,
      text: segmentText,
      noSpeechProb: segment.noSpeechProb,
      speakerTurnNext: segment.speakerTurnNext,
      tokens,
    };
  });
  text.flush();
  return segments;
}

/** The check pass in the addon's transcript shape: one no-speech probability, no token times. */
function checkAsResult(check: NativeCheckPass, main: NativeTranscribeResult): NativeTranscribeResult {
  return {
    language: main.language,
    languageProbability: main.languageProbability,
    timings: main.timings,
    segments: check.segments.map((s) => ({
      t0: s.t0,
      t1: s.t1,
      bytes: s.bytes,
      noSpeechProb: check.noSpeechProb,
      speakerTurnNext: false,
      tokens: s.tokens.map((t) => ({ ...t, plog: Math.log(Math.max(t.p, Number.MIN_VALUE)), t0: -1, t1: -1, tDtw: -1 })),
    })),
  };
}
