// The local runtime's output formats, shaped like the service's (text, json, verbose_json).
import type { Transcript } from '../engine/transcript.js';

export const OUTPUT_FORMATS = ['text', 'json', 'verbose_json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

export function formatTranscript(transcript: Transcript, format: OutputFormat): string {
  if (format === 'text') return `${transcript.text}\n`;
  if (format === 'json') return `${JSON.stringify({ text: transcript.text })}\n`;
  const verbose = {
    text: transcript.text,
    language: transcript.language,
    duration: round(transcript.durationSeconds),
    segments: transcript.segments.map((segment, index) => ({
      id: String(index),
      start: round(segment.start),
      end: round(segment.end),
      text: segment.text.trim(),
      no_speech_prob: segment.noSpeechProb,
    })),
  };
  return `${JSON.stringify(verbose, null, 2)}\n`;
}
