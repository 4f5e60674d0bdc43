// The local runtime's output formats, shaped like the service's (text, json, verbose_json).
import { durationUsage, redactionFields, responseSegments } from '../contract/response-body.js';
import { patternsBlock } from '../pipeline/pattern-stage.js';
import type { TranscriptionOutcome } from '../pipeline/run-transcription.js';
import { answerWords } from '../pipeline/speaker-attachment.js';

export const OUTPUT_FORMATS = ['text', 'json', 'verbose_json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

export function formatTranscript(outcome: TranscriptionOutcome, format: OutputFormat): string {
  const attached = outcome.speakers;
  const diarized = attached.timing.requested_max_speakers !== null;
  if (format === 'text') {
    if (!diarized) return `${outcome.text}\n`;
    // One line per segment with its speaker, as a clinician reads a dialogue.
    return attached.segments
      .filter((s) => s.text.trim() !== '')
      .map((s) => `${s.speaker}: ${s.text.trim()}\n`)
      .join('');
  }
  if (format === 'json') return `${JSON.stringify({ text: outcome.text, ...redactionFields(outcome) })}\n`;
  const words = answerWords(outcome);
  const verbose = {
    task: 'transcribe',
    text: outcome.text,
    language: outcome.language,
    language_source: outcome.languageSource,
    duration: round(outcome.durationSeconds),
    speech_seconds: round(outcome.speech.seconds),
    // The service's segments exactly (ids `seg_N`, OpenAI's fields); the speaker only when diarized.
    segments: responseSegments(outcome).map(({ speaker, ...segment }) => ({ ...segment, ...(diarized ? { speaker } : {}) })),
    ...(words ? { words: words.map((w) => ({ ...w, start: round(w.start), end: round(w.end) })) } : {}),
    ...(diarized
      ? {
          speakers: attached.speakers,
          speaker_segments: attached.speakerSegments.map((t) => ({ ...t, start: round(t.start), end: round(t.end) })),
          speaker_timing: attached.timing,
        }
      : {}),
    ...(outcome.detection ? { language_detection: outcome.detection } : {}),
    ...(outcome.patterns ? { patterns: patternsBlock(outcome.patterns) } : {}),
    ...redactionFields(outcome),
    usage: durationUsage(outcome.durationSeconds),
  };
  return `${JSON.stringify(verbose, null, 2)}\n`;
}
