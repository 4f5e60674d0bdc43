// The inline response in each format: `text` (plain), `json` ({text}) and the verbose shape shared by
// `verbose_json` and `diarized_json`, with every required field of the contract.
import type { ModelId } from '../domain/model-ids.js';
import type { Task } from '../domain/tasks.js';
import { segmentConfidence } from '../pipeline/clinical-text-stage.js';
import { patternsBlock } from '../pipeline/pattern-stage.js';
import type { TranscriptionOutcome } from '../pipeline/run-transcription.js';
import { answerWords } from '../pipeline/speaker-attachment.js';
import { disabledVocabularyAudit } from '../pipeline/vocabulary-audit.js';
import { openAiSegmentFields } from './openai-segment-fields.js';
import type { ResponseFormat } from './request-fields.js';
import { isSubtitleFormat, subtitles } from './subtitles.js';
export const API_VERSION = '2026-07-27';
/** `metadata.runtime` of every transcript. */
export const RUNTIME_NAME = 'svc-runtime';
/** OpenAI's stream event types (a diarized segment is one too, as a segment's `type`). */
export const STREAM_EVENT_TYPES = { delta: 'transcript.text.delta', segment: 'transcript.text.segment', done: 'transcript.text.done' } as const;

export interface ResponseContext {
  requestId: string;
  model: ModelId;
  modelBuild: string;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The answer's segments (verbose formats and subtitles): those with text, with their speakers. */
export function responseSegments(outcome: TranscriptionOutcome) {
  return outcome.speakers.segments
    .filter((s) => s.text.trim() !== '')
    .map((s, i) => {
      const confidence = s.confidence !== undefined ? s.confidence : segmentConfidence(s);
      return {
        // OpenAI's diarized segment type; the contract's fields follow.
        type: STREAM_EVENT_TYPES.segment,
        id: `seg_${i}`,
        speaker: s.speaker,
        text: s.text.trim(),
        start: round3(s.start),
        end: round3(s.end),
        confidence: confidence === null ? null : round3(confidence),
        language: s.language,
        ...(s.channel === undefined ? {} : { channel: s.channel }),
        ...(s.reviewRequired ? { review_required: true as const } : {}),
        ...(s.lowConfidence ? { low_confidence: true as const } : {}),
        ...openAiSegmentFields({ ...s, text: s.text.trim() }, outcome.temperature),
      };
    });
}

export function verboseBody(outcome: TranscriptionOutcome, ctx: ResponseContext) {
  const attached = outcome.speakers;
  const segments = responseSegments(outcome);
  const words = answerWords(outcome);
  return {
    task: outcome.task,
    text: outcome.text,
    ...languageFields(outcome.task, outcome.language),
    language_source: outcome.languageSource,
    duration: round3(outcome.durationSeconds),
    model: ctx.model,
    request_id: ctx.requestId,
    segments,
    ...(words
      ? {
          words: words.map((w) => ({
            ...w,
            start: round3(w.start),
            end: round3(w.end),
            ...(w.confidence === undefined ? {} : { confidence: round3(w.confidence) }),
          })),
        }
      : {}),
    speakers: attached.speakers,
    speaker_segments: attached.speakerSegments.map((t) => ({ ...t, start: round3(t.start), end: round3(t.end) })),
    speaker_timing: attached.timing,
    ...(outcome.detection ? { language_detection: outcome.detection } : {}),
    vocabulary: outcome.vocabulary ?? disabledVocabularyAudit(outcome.language),
    ...(outcome.patterns ? { patterns: patternsBlock(outcome.patterns) } : {}),
    ...redactionFields(outcome),
    metadata: {
      api_version: API_VERSION,
      runtime: RUNTIME_NAME,
      processing_ms: { asr: outcome.asrMs, diarization: outcome.diarizationMs },
      model_build: ctx.modelBuild,
    },
    usage: durationUsage(outcome.durationSeconds),
  };
}

/** Where redaction removed something and how many of each class (never what); nothing when it was not asked. */
export function redactionFields(outcome: Pick<TranscriptionOutcome, 'redaction'>) {
  return outcome.redaction ? { redactions: outcome.redaction.redactions, redaction_counts: outcome.redaction.counts } : {};
}

/**
 * `language` is the text's language: the spoken one, or English for a translation, which names the
 * spoken language in `source_language` (OpenAI's translations say only "english").
 */
export function languageFields(task: Task, spoken: string): { language: string; source_language?: string } {
  return task === 'translate' ? { language: TRANSLATION_LANGUAGE, source_language: spoken } : { language: spoken };
}

/** The language of a translation's text. */
export const TRANSLATION_LANGUAGE = 'en';

/** OpenAI's usage of a transcription billed by duration: whole seconds of audio, rounded up. */
export function durationUsage(seconds: number): { type: 'duration'; seconds: number } {
  return { type: 'duration', seconds: Math.ceil(seconds - 1e-9) };
}

/**
 * OpenAI's `logprobs` (include[]=logprobs): the decoder's text tokens in order, with their
 * log-probability and bytes. They are what the decoder emitted, before vocabulary corrections and
 * patterns, so their text may differ from the answer's where a term was corrected.
 */
export function tokenLogprobs(outcome: TranscriptionOutcome): Array<{ token: string; logprob: number; bytes: number[] }> {
  return outcome.segments.flatMap((s) =>
    s.tokens.filter((t) => !t.special).map((t) => ({ token: t.text, logprob: Math.round(t.logprob * 1e6) / 1e6, bytes: [...t.bytes] })),
  );
}

export function responseBody(
  outcome: TranscriptionOutcome,
  format: ResponseFormat,
  ctx: ResponseContext,
  options: { logprobs?: boolean } = {},
): { contentType: string; body: string } {
  if (format === 'text') return { contentType: 'text/plain; charset=utf-8', body: outcome.text };
  if (format === 'json') {
    return {
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify({ text: outcome.text, ...(options.logprobs ? { logprobs: tokenLogprobs(outcome) } : {}), ...redactionFields(outcome) }),
    };
  }
  if (isSubtitleFormat(format)) return subtitles(format, responseSegments(outcome));
  return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(verboseBody(outcome, ctx)) };
}
