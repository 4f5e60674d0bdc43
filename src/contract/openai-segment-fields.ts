// The fields OpenAI's `TranscriptionSegment` requires beside the contract's own, computed as OpenAI's
// Whisper computes them, from what whisper.cpp reports for the segment:
// - `seek`: where the segment begins, in whisper's 10 ms frames (OpenAI's seek is the frame of the
//   window a segment was decoded in; our windows are packed speech, so the segment's own start frame
//   is the offset that means the same thing on the recording's timeline);
// - `tokens`: the decoder's token ids, timestamp and special tokens included, as OpenAI lists them;
//   they are what was decoded, before vocabulary corrections and patterns;
// - `temperature`: the temperature decoding began at (the request's). whisper.cpp does not report
//   whether a segment was decoded again at a fallback temperature;
// - `avg_logprob`: the mean log-probability of the segment's tokens;
// - `compression_ratio`: the text's UTF-8 length over its zlib-compressed length (OpenAI's measure of
//   a repetitive, hallucinated text: above 2.4 it is suspect);
// - `no_speech_prob`: whisper's probability that the window held no speech.
import { deflateSync } from 'node:zlib';

import type { TranscriptToken } from '../engine/transcript.js';

export const FRAMES_PER_SECOND = 100;

export interface OpenAiSegmentFields {
  seek: number;
  tokens: number[];
  temperature: number;
  avg_logprob: number;
  compression_ratio: number;
  no_speech_prob: number;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The 10 ms frame a time in seconds falls in. */
export function seekOf(startSeconds: number): number {
  return Math.floor(startSeconds * FRAMES_PER_SECOND + 1e-6);
}

export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return 0;
  return round6(bytes.length / deflateSync(bytes).length);
}

export function openAiSegmentFields(
  segment: { start: number; text: string; noSpeechProb: number; tokens: readonly Pick<TranscriptToken, 'id' | 'logprob'>[] },
  temperature: number,
): OpenAiSegmentFields {
  const { tokens } = segment;
  return {
    seek: seekOf(segment.start),
    tokens: tokens.map((t) => t.id),
    temperature,
    avg_logprob: tokens.length ? round6(tokens.reduce((sum, t) => sum + t.logprob, 0) / tokens.length) : 0,
    compression_ratio: compressionRatio(segment.text),
    no_speech_prob: round6(segment.noSpeechProb),
  };
}
