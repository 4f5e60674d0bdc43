// A long job's transcript, assembled chunk by chunk. Each chunk's outcome is shaped by the same
// verboseBody as an inline answer (once, by the chunk's processing, which also reads its speaker
// timing), then its times are shifted by the chunk's offset and appended.
// The assembled state is the provisional result a poll may fetch while the job runs (it is stored
// as a blob, so rows stay small however long the recording); the final result is built from it.
import type { TranscriptRedaction } from '../clinical-text/redact-transcript.js';
import { type OpenAiSegmentFields, seekOf } from '../contract/openai-segment-fields.js';
import type { ResponseFormat } from '../contract/request-fields.js';
import { durationUsage, languageFields, RUNTIME_NAME, type verboseBody } from '../contract/response-body.js';
import { isSubtitleFormat, subtitles } from '../contract/subtitles.js';
import type { ModelId } from '../domain/model-ids.js';
import type { Task } from '../domain/tasks.js';
import { patternsBlock, type PatternTally } from '../pipeline/pattern-stage.js';
import type { VocabularyTally } from '../pipeline/prompted-recognition.js';
import { NO_SPEECH_LANGUAGE, type RedactionReport, type TranscriptionOutcome } from '../pipeline/run-transcription.js';
import type { ShapedAttachment } from '../pipeline/speaker-attachment.js';
import { auditVocabulary, disabledVocabularyAudit, type VocabularyPlan } from '../pipeline/vocabulary-audit.js';
const round3 = (x: number) => Math.round(x * 1000) / 1000;

export interface TimedSegment extends Partial<OpenAiSegmentFields> {
  id: string;
  speaker: string;
  text: string;
  start: number;
  end: number;
  confidence: number | null;
  language?: string;
  /** `multichannel`: the channel it was heard on. */
  channel?: number;
}

export interface TimedWord {
  word: string;
  start: number;
  end: number;
  speaker?: string;
  /** `multichannel`: the channel it was heard on. */
  channel?: number;
}

/** The `object` of a provisional transcript. */
export const PARTIAL_OBJECT = 'transcription.partial';

/** The provisional transcript: what `partial_result_url` serves while a job runs. */
export interface AssembledTranscript {
  object: typeof PARTIAL_OBJECT;
  provisional: true;
  text: string;
  language: string;
  /** How `language` was chosen (absent only on the empty transcript before the first chunk). */
  language_source?: TranscriptionOutcome['languageSource'];
  completed_audio_seconds: number;
  result_revision: number;
  segments: TimedSegment[];
  words?: TimedWord[];
  /** Where redaction removed something (seconds into the recording) and how many of each class; absent when not asked. */
  redactions?: TranscriptRedaction[];
  redaction_counts?: RedactionReport['counts'];
}

export function emptyTranscript(language: string): AssembledTranscript {
  return { object: PARTIAL_OBJECT, provisional: true, text: '', language, completed_audio_seconds: 0, result_revision: 0, segments: [] };
}

/** What appending reads of a chunk's verbose body (verboseBody of the same outcome). */
export type ChunkBody = Pick<ReturnType<typeof verboseBody>, 'segments' | 'words'>;

/**
 * The transcript with one more chunk, whose audio started `offsetSeconds` into the recording:
 * `body` is the chunk's outcome shaped by verboseBody.
 */
export function appendChunk(
  previous: AssembledTranscript,
  outcome: Pick<TranscriptionOutcome, 'text' | 'language' | 'languageSource' | 'redaction'>,
  body: ChunkBody,
  offsetSeconds: number,
  chunkSeconds: number,
  revision: number,
): AssembledTranscript {
  const first = previous.segments.length;
  const segments = body.segments.map((s, i) => ({
    ...s,
    id: `seg_${first + i}`,
    start: round3(s.start + offsetSeconds),
    end: round3(s.end + offsetSeconds),
    seek: seekOf(s.start + offsetSeconds),
  }));
  const words = body.words?.map((w) => ({ ...w, start: round3(w.start + offsetSeconds), end: round3(w.end + offsetSeconds) }));
  const text = [previous.text, outcome.text.trim()].filter((t) => t !== '').join(' ');
  const redacted = outcome.redaction
    ? outcome.redaction.redactions.map((r) => ({ ...r, start: round3(r.start + offsetSeconds), end: round3(r.end + offsetSeconds) }))
    : null;
  return {
    object: PARTIAL_OBJECT,
    provisional: true,
    text,
    language: outcome.language,
    language_source: outcome.languageSource,
    completed_audio_seconds: round3(offsetSeconds + chunkSeconds),
    result_revision: revision,
    segments: [...previous.segments, ...segments],
    ...(words || previous.words ? { words: [...(previous.words ?? []), ...(words ?? [])] } : {}),
    ...(redacted || previous.redactions
      ? {
          redactions: [...(previous.redactions ?? []), ...(redacted ?? [])],
          redaction_counts: addCounts(previous.redaction_counts ?? {}, outcome.redaction?.counts ?? {}),
        }
      : {}),
  };
}

function addCounts(a: RedactionReport['counts'], b: RedactionReport['counts']): RedactionReport['counts'] {
  const sum = { ...a };
  for (const [type, n] of Object.entries(b) as Array<[keyof typeof b, number]>) sum[type] = (sum[type] ?? 0) + n;
  return sum;
}

export interface FinalContext {
  jobId: string;
  task: Task;
  model: ModelId;
  modelBuild: string;
  format: ResponseFormat;
  languageSource: TranscriptionOutcome['languageSource'];
  detection: TranscriptionOutcome['detection'];
  wordTiming: boolean;
  durationSeconds: number;
  asrMs: number;
  /** The terms the request asked for and the key's dictionary, to audit against the whole text. */
  /** The merged terms and prompt, and what prompting did over the chunks; null when nothing was prompted. */
  vocabulary: { plan: VocabularyPlan; tally: VocabularyTally } | null;
  /** What the request's patterns matched over the whole recording; null without patterns. */
  patterns: PatternTally | null;
  speakerTiming: ReturnType<typeof verboseBody>['speaker_timing'];
  apiVersion: string;
  /** Speakers attached by the job's decoration; absent: none attached (not requested, or pending). */
  speakers?: ShapedAttachment<TimedSegment>;
  diarizationMs?: number;
  /** The decoration's state while it is pending or after it failed (job-decoration.ts); absent when settled. */
  decoration?: Decoration;
}

/** The contract's `decoration` object of a job transcript. */
export type Decoration = { status: 'processing'; stale_after: string } | { status: 'unavailable'; review_required: true };

/**
 * The final result in the job's response format: `text` as plain text; `json` and the verbose formats
 * as the job transcript (docs/DESIGN.md decision 7: times in seconds plus the legacy `start_ms`/`end_ms`).
 */
export function finalResult(transcript: AssembledTranscript, ctx: FinalContext): { contentType: string; body: string } {
  if (ctx.format === 'text') return { contentType: 'text/plain; charset=utf-8', body: transcript.text };
  // Subtitles follow the decoration: speakers appear as voices once it attached them.
  if (isSubtitleFormat(ctx.format)) return subtitles(ctx.format, ctx.speakers?.segments ?? transcript.segments);
  const ms = (seconds: number) => Math.round(seconds * 1000);
  const attached = ctx.speakers;
  const segments = (attached?.segments ?? transcript.segments).map((s) => ({ ...s, start_ms: ms(s.start), end_ms: ms(s.end) }));
  const language = transcript.text === '' ? NO_SPEECH_LANGUAGE : transcript.language;
  const metadata = {
    api_version: ctx.apiVersion,
    runtime: RUNTIME_NAME,
    processing_ms: { asr: ctx.asrMs, diarization: ctx.diarizationMs ?? 0 },
    model_build: ctx.modelBuild,
  };
  // Word timing arrives with the speakers: none while the decoration is pending, none if it failed.
  const words = ctx.decoration ? null : ((attached ? attached.words : transcript.words) ?? null);
  const common = {
    text: transcript.text,
    ...languageFields(ctx.task, language),
    language_source: ctx.languageSource,
    duration: round3(ctx.durationSeconds),
    segments,
    ...(ctx.decoration ? { decoration: ctx.decoration } : {}),
    word_timing_available: ctx.wordTiming && !ctx.decoration,
    ...(transcript.redactions ? { redactions: transcript.redactions, redaction_counts: transcript.redaction_counts ?? {} } : {}),
    metadata,
  };
  if (ctx.format === 'json') return json(common);
  return json({
    task: ctx.task,
    ...common,
    model: ctx.model,
    request_id: ctx.jobId,
    ...(words ? { words: words.map((w) => ({ ...w, start: round3(w.start), end: round3(w.end), start_ms: ms(w.start), end_ms: ms(w.end) })) } : {}),
    speakers: attached?.speakers ?? [],
    speaker_segments: attached?.speakerSegments.map((t) => ({ ...t, start: round3(t.start), end: round3(t.end) })) ?? [],
    speaker_timing: attached?.timing ?? ctx.speakerTiming,
    ...(ctx.detection ? { language_detection: ctx.detection } : {}),
    vocabulary: ctx.vocabulary
      ? auditVocabulary(ctx.vocabulary.plan, ctx.vocabulary.tally, transcript.text, common.language)
      : disabledVocabularyAudit(common.language),
    ...(ctx.patterns ? { patterns: patternsBlock(ctx.patterns) } : {}),
    usage: durationUsage(ctx.durationSeconds),
  });
}

function json(value: unknown) {
  return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(value) };
}
