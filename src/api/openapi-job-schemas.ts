// The contract's job resources as JSON Schema: the creation request, the job envelope, its result,
// progress and upload form, and the webhook events that announce its end.
import { documentedFields, requiredFieldsOf } from '../contract/request-fields.js';
import { ACCEPTED_JOB_STATUSES, DECORATION_STATUSES, JOB_FAILURE_CODES, JOB_STATUSES } from '../domain/job-statuses.js';
import { JOB_MODEL } from '../domain/model-ids.js';
import { MIN_JOB_AUDIO_SECONDS } from '../jobs/job-chunk.js';
import { PARTIAL_OBJECT } from '../jobs/job-transcript.js';
import { EVENT_ID_PREFIX } from '../jobs/job-webhook-events.js';
import { LANGUAGE_SOURCES } from '../pipeline/language-stage.js';
import { boolean, integer, number, ref, string } from './openapi-schema-builders.js';
import { redactionFields } from './openapi-transcript-schemas.js';
import type { Schema } from './openapi-types.js';
import { JOB_OBJECT, MIN_AUDIO_SECONDS_ADVISORY } from './routes/job-view.js';

export const decoration: Schema = {
  type: 'object',
  description: 'Present while speakers are being attached (`processing`), or when that failed (`unavailable`: review the transcript).',
  required: ['status'],
  properties: {
    status: string({ enum: DECORATION_STATUSES }),
    stale_after: string({ format: 'date-time' }),
    review_required: boolean(),
  },
};

export const jobTranscript: Schema = {
  description: 'Final job result content: the verbose shape plus decoration state.',
  allOf: [
    ref('TranscriptionVerboseJson'),
    {
      type: 'object',
      properties: {
        decoration: ref('Decoration'),
        word_timing_available: boolean({ description: 'false while decoration is processing.' }),
      },
    },
  ],
};

/** A job's `json` result: the job transcript without the verbose fields (no `task`, which tells the two apart). */
export const jobTranscriptJson: Schema = {
  type: 'object',
  description: "A job's final result in the `json` format.",
  required: ['text', 'language', 'duration', 'segments', 'metadata'],
  not: { required: ['task'] },
  properties: {
    text: string(),
    language: string({ description: 'Effective language: `mixed` for multilingual auto, `und` for silence.' }),
    source_language: string({ description: "Translations: the spoken language (`language` is then `en`, the text's)." }),
    language_source: string({ enum: LANGUAGE_SOURCES }),
    duration: number({ description: 'seconds' }),
    segments: { type: 'array', items: ref('Segment') },
    decoration: ref('Decoration'),
    word_timing_available: boolean(),
    ...redactionFields,
    metadata: ref('Metadata'),
  },
};

export const partialTranscript: Schema = {
  type: 'object',
  description: 'What `partial_result_url` serves while a job runs: provisional, replaced by the final result.',
  required: ['object', 'provisional', 'text', 'language', 'completed_audio_seconds', 'result_revision', 'segments'],
  properties: {
    object: string({ const: PARTIAL_OBJECT }),
    provisional: boolean({ const: true }),
    text: string(),
    language: string(),
    language_source: string({ enum: LANGUAGE_SOURCES }),
    completed_audio_seconds: number(),
    result_revision: integer(),
    segments: { type: 'array', items: ref('Segment') },
    words: { type: 'array', items: ref('Word') },
    ...redactionFields,
  },
};

/** Whether the request asked for a completion webhook (`webhook_url`): the same block on every job-creating answer. */
const webhookRequested: Schema = {
  type: 'object',
  required: ['requested'],
  properties: { requested: boolean({ description: "true when the request gave a `webhook_url`: an event announces the job's end." }) },
};

export const acceptedJob: Schema = {
  type: 'object',
  required: ['id', 'object', 'status', 'created_at', 'model', 'poll_url', 'webhook'],
  properties: {
    id: string(),
    object: string({ const: JOB_OBJECT }),
    status: string({ enum: ACCEPTED_JOB_STATUSES }),
    created_at: string({ format: 'date-time' }),
    model: string({ const: JOB_MODEL, description: "The service's model; `request.model` chose the engine." }),
    poll_url: string({ format: 'uri' }),
    webhook: webhookRequested,
  },
};

export const job: Schema = {
  type: 'object',
  required: ['id', 'status', 'created_at', 'updated_at', 'model'],
  properties: {
    id: string(),
    object: string({ const: JOB_OBJECT }),
    status: string({ enum: JOB_STATUSES }),
    created_at: string({ format: 'date-time' }),
    updated_at: string({ format: 'date-time' }),
    model: string({ const: JOB_MODEL }),
    result: ref('JobResult'),
    error: ref('JobError'),
    transcription: ref('JobProgress'),
  },
};

export const jobResult: Schema = {
  type: 'object',
  properties: {
    download_url: string({ format: 'uri' }),
    expires_in_seconds: integer(),
    content_type: string(),
    expired: boolean(),
    content: {
      description: 'With `include_result=true` and a result of at most 4 MiB: the final transcript.',
      oneOf: [ref('JobTranscript'), ref('JobTranscriptJson'), string()],
    },
    inline: boolean({ description: 'false means fetch `download_url`.' }),
    redacted_audio: {
      type: 'object',
      description:
        'With `redact_audio`: `ready` with where to fetch the redacted copy of the audio (a WAV file, kept and deleted with the result), ' +
        "or `unavailable` when it could not be made (the transcript is the job's all the same).",
      required: ['status'],
      properties: {
        status: string({ enum: ['ready', 'unavailable'] }),
        download_url: string({ format: 'uri' }),
        content_type: string({ const: 'audio/wav' }),
      },
    },
    unredacted_result: {
      type: 'object',
      description:
        'With `redact_output=redacted_and_unredacted`: where the key that created the job fetches the unredacted transcript ' +
        '(the same format as the result, kept and deleted with it).',
      required: ['download_url', 'content_type'],
      properties: { download_url: string({ format: 'uri' }), content_type: string() },
    },
  },
};

export const jobError: Schema = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: string({ enum: JOB_FAILURE_CODES }), message: string() },
};

export const jobProgress: Schema = {
  type: 'object',
  description: 'Provisional progress of a long running job; replaced entirely by the final result.',
  properties: {
    status: string({ const: 'processing' }),
    partial_result_url: string({ format: 'uri' }),
    result_revision: integer(),
    completed_audio_seconds: number(),
    provisional: boolean({ const: true }),
  },
};

export const uploadForm: Schema = {
  type: 'object',
  required: ['method', 'url', 'fields', 'expires_in_seconds'],
  properties: {
    method: string({ const: 'POST' }),
    url: string({ format: 'uri' }),
    fields: { type: 'object', additionalProperties: string(), description: 'Send every entry exactly as given, plus the file part.' },
    expires_in_seconds: integer(),
  },
};

export const createdJob: Schema = {
  allOf: [
    ref('Job'),
    {
      type: 'object',
      required: ['upload', 'complete_url', 'poll_url', 'min_audio_seconds', 'max_audio_seconds', 'webhook'],
      properties: {
        upload: ref('UploadForm'),
        complete_url: string({ format: 'uri' }),
        poll_url: string({ format: 'uri' }),
        min_audio_seconds: integer({
          const: MIN_AUDIO_SECONDS_ADVISORY,
          description:
            `Advisory, not a limit: the contract's constant ${MIN_AUDIO_SECONDS_ADVISORY}, the length below which the direct route ` +
            '(`POST /v1/audio/transcriptions`) is the better way, as it answers inline. A job takes shorter audio too: ' +
            `only audio under ${MIN_JOB_AUDIO_SECONDS} s fails, as \`audio_undecodable\`.`,
        }),
        max_audio_seconds: integer({ description: 'The live authority on the longest audio a job accepts.' }),
        webhook: webhookRequested,
      },
    },
  ],
};

/** The job body: the contract's fields as JSON carries them (contract/request-fields.ts). */
export const jobCreationRequest: Schema = {
  type: 'object',
  required: requiredFieldsOf('jobs'),
  properties: documentedFields('jobs', 'json'),
};

/** A job webhook event: the envelope every event shares, around its own `data` (which always ends with `poll_url`). */
export function jobEvent(type: string, description: string, data: Record<string, Schema>): Schema {
  return {
    type: 'object',
    description,
    required: ['id', 'type', 'created', 'data'],
    additionalProperties: false,
    properties: {
      id: string({ pattern: `^${EVENT_ID_PREFIX}`, description: 'Equals the `webhook-id` header; stable across attempts.' }),
      type: string({ const: type }),
      created: string({ format: 'date-time' }),
      data: {
        type: 'object',
        required: [...Object.keys(data), 'poll_url'],
        additionalProperties: false,
        properties: { ...data, poll_url: string({ format: 'uri', description: 'Authenticate with the API key that created the job.' }) },
      },
    },
  };
}

export const jobSucceededEvent = jobEvent(
  'transcription.job.succeeded',
  'Never carries transcript text, file names, result URLs or decoder errors: fetch the result from `data.poll_url`.',
  { job_id: string(), status: string({ const: 'succeeded' }) },
);

export const jobFailedEvent = jobEvent(
  'transcription.job.failed',
  'Carries the failure code only (never its message, transcript text or file names): read the message from `data.poll_url`.',
  {
    job_id: string(),
    status: string({ const: 'failed' }),
    error: { type: 'object', required: ['code'], additionalProperties: false, properties: { code: string({ enum: JOB_FAILURE_CODES }) } },
  },
);

/** The translation form: the transcription form's fields that apply (translation-request.ts). */
