// The local runtime's output formats, shaped like the service's (text, json, verbose_json).
import type { TranscriptionOutcome } from '../pipeline/run-transcription.js';

export const OUTPUT_FORMATS = ['text', 'json', 'verbose_json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

export function formatTranscript(outcome: TranscriptionOutcome, format: OutputFormat): string {
  if (format === 'text') return `${outcome.text}\n`;
  if (format === 'json') return `${JSON.stringify({ text: outcome.text })}\n`;
  const verbose = {
    text: outcome.text,
    language: outcome.language,
    language_source: outcome.languageSource,
    duration: round(outcome.durationSeconds),
    speech_seconds: round(outcome.speech.seconds),
    segments: outcome.segments.map((segment, index) => ({
      id: String(index),
      start: round(segment.start),
      end: round(segment.end),
      text: segment.text.trim(),
      language: segment.language,
      no_speech_prob: segment.noSpeechProb,
    })),
    ...(outcome.detection ? { language_detection: outcome.detection } : {}),
  };
  return `${JSON.stringify(verbose, null, 2)}\n`;
}
