// The contract's resources as JSON Schema (2020-12, as OpenAPI 3.1 uses it): request forms and
// bodies, inline transcripts, jobs and the error envelope. Enumerations come from the code that
// enforces them, so the document cannot drift from what the server accepts.
import { LANGUAGE_SOURCES } from '../pipeline/language-stage.js';
import { MAX_LANGUAGE_HINTS } from '../pipeline/languages.js';
import { LANGUAGE_REGION_SYNTAX } from '../domain/language-families.js';
import { MAX_LISTED_SPANS, PATTERNS_SCHEMA } from '../pipeline/pattern-stage.js';
import { MAX_PATTERNS, MAX_PATTERNS_LENGTH } from '../pipeline/patterns.js';
import { DEFAULT_MAX_SPEAKERS, MAX_SPEAKERS, SPEAKER_CEILING_ACTIONS } from '../pipeline/speaker-attachment.js';
import { VOCABULARY_AUDIT_SCHEMA, VOCABULARY_MODES } from '../pipeline/vocabulary-audit.js';
import { JOB_MODEL } from '../store/job-store.js';
import {
  INCLUDE_FIELD,
  INCLUDE_VALUES,
  KEYWORDS_FIELD,
  DEFAULT_JOB_RESPONSE_FORMAT,
  DEFAULT_PROFILE,
  DEFAULT_RESPONSE_FORMAT,
  MODEL_OWNER,
  PROFILES,
  RESPONSE_FORMATS,
  STREAMED_FORMATS,
  TIMESTAMP_GRANULARITIES,
  TIMESTAMP_GRANULARITIES_FIELD,
} from '../contract/transcription-request.js';
import { MAX_PROMPT_CHARACTERS } from '../contract/prompt-field.js';
import { DEFAULT_TRANSLATION_FORMAT, TRANSLATION_FIELDS, TRANSLATION_FORMATS } from '../contract/translation-request.js';
import { MAX_TERM_LENGTH, MAX_TERMS, MAX_TERMS_SMALL } from '../pipeline/vocabulary-terms.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../contract/webhook-url.js';
import { MAX_CONTENT_TYPE, MAX_FILENAME, MAX_JOB_UPLOAD_BYTES } from './routes/job-creation-request.js';
import { EVENT_ID_PREFIX } from '../jobs/job-webhook-events.js';
import { PARTIAL_OBJECT } from '../jobs/job-transcript.js';
import { RUNTIME_NAME, STREAM_EVENT_TYPES } from '../contract/response-body.js';
import { API_ERROR_CODES } from './api-error.js';
import { JOB_OBJECT, MIN_AUDIO_SECONDS_ADVISORY } from './routes/job-view.js';
import { BLOCK_REASONS } from '../billing/billing-decision.js';
import { BILLING_STATES, PLANS } from '../store/key-store.js';
import { USAGE_ROUTES } from '../store/usage-record.js';
import type { Reference, Schema } from './openapi-types.js';

import { MODEL_IDS } from '../domain/model-ids.js';
import { TASKS } from '../domain/tasks.js';
import { ACCEPTED_JOB_STATUSES, DECORATION_STATUSES, JOB_FAILURE_CODES, JOB_STATUSES } from '../domain/job-statuses.js';
import { LANGUAGE_FAMILIES } from '../domain/language-families.js';
export const ref = (name: string): Reference => ({ $ref: `#/components/schemas/${name}` });

const AUDIO_FORMATS = 'WAV, MP3, M4A/MP4, WebM, OGG, FLAC or AAC';
/** `en` -> `[eE][nN]`: tags are read in any case (languages.ts), and JSON Schema patterns have no flags. */
const anyCase = (text: string) => [...text].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join('');
const LANGUAGE_TAG_PATTERN = `^(auto|(${LANGUAGE_FAMILIES.map(anyCase).join('|')})(-(${LANGUAGE_REGION_SYNTAX}))?)$`;
const string = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const integer = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
const number = (extra: Schema = {}): Schema => ({ type: 'number', ...extra });
const boolean = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra });
const stringArray = (extra: Schema = {}): Schema => ({ type: 'array', items: string(), ...extra });

const errorEnvelope: Schema = {
  type: 'object',
  description: 'Every error uses this envelope and nothing else at the top level. Branch on `error.code`; `message` is a fixed server text.',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: { code: string({ enum: API_ERROR_CODES }), message: string() },
    },
  },
};

const transcriptionRequest: Schema = {
  type: 'object',
  required: ['file', 'model'],
  properties: {
    file: string({
      format: 'binary',
      contentMediaType: 'application/octet-stream',
      description:
        `The audio: ${AUDIO_FORMATS}. At most 100,000,000 bytes; larger files use /v1/jobs. ` +
        `The bytes decide the container, not the file name or declared type.`,
    }),
    model: string({ enum: MODEL_IDS }),
    response_format: string({ enum: RESPONSE_FORMATS, default: DEFAULT_RESPONSE_FORMAT }),
    language: string({
      description:
        'A supported BCP-47 tag (family `xx` or regional `xx-YY`) or `auto` (each utterance detected). ' +
        "Omitted: the key's default language; without one, the dominant language is detected from the speech.",
      pattern: LANGUAGE_TAG_PATTERN,
      examples: ['en', 'en-GB', 'es-419', 'auto'],
    }),
    language_hints: string({
      description: 'JSON array string of 1 to 8 candidate BCP-47 tags. Valid only with `language=auto`.',
      contentMediaType: 'application/json',
      contentSchema: stringArray({ minItems: 1, maxItems: MAX_LANGUAGE_HINTS, uniqueItems: true }),
    }),
    diarize: boolean({ default: false, description: 'Attach speaker labels and word timestamps. Use with `response_format=verbose_json`.' }),
    [TIMESTAMP_GRANULARITIES_FIELD]: {
      type: 'array',
      items: string({ enum: TIMESTAMP_GRANULARITIES }),
      description:
        "OpenAI's parameter, repeated per value. `word` adds `words` (without needing `diarize`; not for Arabic or Hindi); " +
        '`segment` is always given. A single value may also come as `timestamp_granularities`. ' +
        'Needs `verbose_json` or `diarized_json`; other values are refused (422).',
    },
    dictionary: boolean({ default: true, description: "`false` suppresses the key's stored terms for this request." }),
    vocabulary: string({
      description: `JSON array string of exact expected terms, up to ${MAX_TERMS} (at most ${MAX_TERMS_SMALL} when the language is \`auto\`, Arabic or Hindi).`,
      contentMediaType: 'application/json',
      contentSchema: stringArray({ maxItems: MAX_TERMS }),
    }),
    patterns: string({
      maxLength: MAX_PATTERNS_LENGTH,
      description:
        `Comma-separated request-only structured-token expressions (PATTERNS.md), at most ${MAX_PATTERNS}; ` +
        `a comma inside brackets, braces or parentheses, or escaped, belongs to its pattern. ` +
        `Needs the \`patterns\` entitlement.`,
    }),
    webhook_url: string({
      format: 'uri',
      maxLength: MAX_WEBHOOK_URL_LENGTH,
      description: 'HTTPS, port 443. Forces asynchronous dispatch (202). Needs an active webhook signing secret on the key.',
    }),
    stream: boolean({
      default: false,
      description:
        `Answer with server-sent events (text/event-stream) as the text is decoded: ` +
        `\`transcript.text.delta\`, then \`transcript.text.segment\` per segment for \`diarized_json\`, then \`transcript.text.done\`. ` +
        `Needs response_format ${STREAMED_FORMATS.join(', ')}, audio within the inline boundary and no \`webhook_url\` (422 otherwise).`,
    }),
    profile: string({
      enum: PROFILES,
      default: DEFAULT_PROFILE,
      description:
        '`standard` and `turbo` are deprecated aliases of `default` with identical behaviour; responses to them carry `Deprecation` and `Warning` headers.',
    }),
    prompt: string({
      maxLength: MAX_PROMPT_CHARACTERS,
      description: "OpenAI's parameter: text that guides the wording and style (VOCABULARY.md: prompted with the terms, under the same safety check).",
    }),
    keywords: string({
      description: "OpenAI's parameter, the same as `vocabulary` (send one of the two): a JSON array string of terms.",
      contentMediaType: 'application/json',
      contentSchema: stringArray({ maxItems: MAX_TERMS }),
    }),
    [KEYWORDS_FIELD]: { type: 'array', items: string(), description: "`keywords` as OpenAI's client sends an array: the field repeated per term." },
    temperature: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0,
      description: "OpenAI's parameter: whisper's first decoding temperature. 0 decodes deterministically (greedy or beam search); above 0 whisper samples.",
    },
    [INCLUDE_FIELD]: {
      type: 'array',
      items: string({ enum: INCLUDE_VALUES }),
      description:
        "OpenAI's parameter (`include` for a single value). `logprobs` adds `logprobs` to the `json` answer: " +
        "the decoder's tokens with their log-probability and bytes, before vocabulary corrections. " +
        'Needs `json` and an inline answer (422 otherwise).',
    },
    chunking_strategy: string({
      description:
        "OpenAI's parameter: `auto` (what the service always does: the VAD's speech regions decide the boundaries) " +
        'or a `server_vad` object, sent as `chunking_strategy[type]=server_vad` with `chunking_strategy[threshold]` (0-1, default 0.5), ' +
        '`chunking_strategy[prefix_padding_ms]` (default 300) and `chunking_strategy[silence_duration_ms]` (default 200), ' +
        "or as its JSON string: the VAD's threshold, padding and minimum silence for this request (jobs too).",
    }),
  },
};

const segment: Schema = {
  type: 'object',
  required: ['id', 'speaker', 'text', 'start', 'end'],
  properties: {
    type: string({ const: STREAM_EVENT_TYPES.segment, description: "OpenAI's diarized segment type." }),
    id: string(),
    speaker: string(),
    text: string(),
    start: number({ description: 'seconds' }),
    end: number({ description: 'seconds' }),
    confidence: { type: ['number', 'null'] },
    language: string(),
    review_required: boolean({ const: true, description: 'The voice is beyond `max_speakers`: unlabelled, to be reviewed.' }),
    // OpenAI's TranscriptionSegment fields (src/pipeline/openai-segment-fields.ts says how each is computed).
    seek: integer({ description: 'The start in 10 ms frames.' }),
    tokens: { type: 'array', items: integer(), description: "The decoder's token ids (special tokens included), before vocabulary corrections." },
    temperature: number({ description: 'The temperature decoding began at (whisper.cpp does not report a fallback).' }),
    avg_logprob: number({ description: "Mean log-probability of the segment's tokens." }),
    compression_ratio: number({ description: 'UTF-8 length over zlib-compressed length; above 2.4 suggests a repetitive, hallucinated text.' }),
    no_speech_prob: number({ description: "Whisper's probability that the window held no speech." }),
  },
};

const word: Schema = {
  type: 'object',
  required: ['word', 'start', 'end'],
  properties: {
    word: string(),
    start: number({ description: 'seconds' }),
    end: number({ description: 'seconds' }),
    speaker: string(),
    review_required: boolean({ const: true, description: 'Spoken by a voice beyond `max_speakers` (no `speaker`).' }),
  },
};

const languageDetection: Schema = {
  type: 'object',
  required: ['mode', 'candidates', 'languages', 'utterances', 'fallbacks'],
  properties: {
    mode: string({ const: 'per_utterance' }),
    candidates: stringArray(),
    requested_candidates: stringArray(),
    languages: stringArray(),
    utterances: integer(),
    fallbacks: integer({ const: 0 }),
  },
};

const vocabularyAudit: Schema = {
  type: 'object',
  required: ['enabled', 'mode', 'requested_terms', 'applied_terms', 'suspect_insertions', 'safety_fallback'],
  properties: {
    enabled: boolean(),
    mode: string({ enum: VOCABULARY_MODES }),
    requested_terms: integer(),
    applied_terms: integer({ deprecated: true, description: 'Deprecated alias of the delivered outcome; never prompt coverage.' }),
    suspect_insertions: integer(),
    safety_fallback: boolean(),
    language: string(),
    schema: string({ const: VOCABULARY_AUDIT_SCHEMA }),
    delivered_terms: stringArray({ description: 'Requested terms present in the transcript.' }),
    delivered: { deprecated: true, description: 'Alias of `delivered_terms`.' },
    corrected_terms: stringArray({ description: 'Conservative caller-owned surface corrections.' }),
    corrections_applied: { deprecated: true, description: 'Alias of `corrected_terms`.' },
    unresolved_terms: stringArray({ description: 'Terms still absent from the transcript.' }),
    unresolved: { deprecated: true, description: 'Alias of `unresolved_terms`.' },
    prompt_status: string({ description: 'Request coverage.' }),
    prompted_terms: integer(),
    prompted_chunks: integer(),
    fallback_chunks: integer(),
    dropped: stringArray({ description: 'Reserved for terms rejected before decoding.' }),
  },
};

const patternsReport: Schema = {
  type: 'object',
  description:
    'What the request-only patterns matched (PATTERNS.md); present when `patterns` was sent. Patterns are named by their place in the request, never echoed.',
  required: ['schema', 'requested', 'matches', 'results', 'budget_exhausted'],
  properties: {
    schema: string({ const: PATTERNS_SCHEMA }),
    requested: integer({ maximum: MAX_PATTERNS }),
    matches: integer({ description: 'Matches over all patterns.' }),
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'count', 'spans', 'spans_truncated'],
        properties: {
          index: integer({ description: "The pattern's place in the request's list, from 0." }),
          count: integer(),
          spans: {
            type: 'array',
            maxItems: MAX_LISTED_SPANS,
            items: {
              type: 'object',
              required: ['start', 'end', 'text', 'source'],
              properties: {
                start: number({ description: 'seconds' }),
                end: number({ description: 'seconds' }),
                text: string({ description: 'The transcript text as the pattern formatted it.' }),
                source: string({ description: 'The transcript text it replaced.' }),
              },
            },
          },
          spans_truncated: boolean({ description: `More than ${MAX_LISTED_SPANS} matches: \`count\` is complete, \`spans\` lists the first.` }),
        },
      },
    },
    budget_exhausted: integer({ description: 'Segment searches stopped by the linear work budget before the segment ended (0 in practice).' }),
  },
};

const speakerTiming: Schema = {
  type: 'object',
  properties: {
    word_timing: boolean(),
    speaker_ceiling_reached: boolean(),
    requested_max_speakers: { type: ['integer', 'null'] },
    detected_speaker_count: integer(),
    speaker_ceiling_action: string({ enum: SPEAKER_CEILING_ACTIONS }),
  },
};

const metadata: Schema = {
  type: 'object',
  properties: {
    api_version: string(),
    runtime: string({ const: RUNTIME_NAME }),
    processing_ms: { type: 'object', properties: { asr: integer(), diarization: integer() } },
    model_build: string(),
  },
};

/** The `json` answer: closed, so a verbose answer (which requires `task`) can never match it too. */
const transcriptionJson: Schema = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: {
    text: string(),
    logprobs: {
      type: 'array',
      description: "With `include[]=logprobs`: the decoder's text tokens in order.",
      items: {
        type: 'object',
        required: ['token', 'logprob', 'bytes'],
        properties: { token: string(), logprob: { type: 'number' }, bytes: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 } } },
      },
    },
  },
};

// OpenAI's stream events (CreateTranscriptionResponseStreamEvent), as this service sends them; a
// failure after the stream opened is sent as the error envelope, the last event.
const transcriptionStreamEvent: Schema = {
  oneOf: [
    { type: 'object', required: ['type', 'delta'], properties: { type: string({ const: STREAM_EVENT_TYPES.delta }), delta: string() } },
    { $ref: '#/components/schemas/Segment' },
    { type: 'object', required: ['type', 'text'], properties: { type: string({ const: STREAM_EVENT_TYPES.done }), text: string() } },
    { $ref: '#/components/schemas/Error' },
  ],
  description: 'One `data:` line per event. A failure after the stream opened is the last event: the error envelope.',
};

const transcriptionVerboseJson: Schema = {
  type: 'object',
  description: 'The `verbose_json` shape, also returned for the historical `diarized_json`.',
  required: ['task', 'text', 'language', 'segments'],
  properties: {
    task: string({ enum: TASKS, description: "OpenAI's `task`: `translate` on /v1/audio/translations." }),
    source_language: string({ description: "Translations: the spoken language (`language` is then `en`, the text's)." }),
    text: string(),
    language: string({ description: 'Effective language: `mixed` for multilingual auto, `und` for silence.' }),
    language_source: string({
      enum: LANGUAGE_SOURCES,
      description: '`requested` (given), `default` (the key default, or nothing was said), `detected` (`auto`, or omitted without a key default).',
    }),
    duration: number({ description: 'seconds' }),
    model: string({ enum: MODEL_IDS }),
    request_id: string({ description: 'Give this to support.' }),
    segments: { type: 'array', items: ref('Segment') },
    words: { type: 'array', items: ref('Word'), description: 'Present when word alignment is available.' },
    speakers: {
      type: 'array',
      items: { type: 'object', required: ['speaker'], properties: { speaker: string() } },
      description: 'Labelled voices (anonymous, session-local: `A`, `B`, ...), at most `max_speakers`.',
    },
    speaker_segments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['speaker', 'start', 'end'],
        properties: {
          speaker: string(),
          start: number({ description: 'seconds' }),
          end: number({ description: 'seconds' }),
          review_required: boolean({ const: true }),
        },
      },
      description: 'Acoustic speaker intervals; the only ownership when word timing is unavailable (Arabic, Hindi).',
    },
    speaker_timing: ref('SpeakerTiming'),
    language_detection: ref('LanguageDetection'),
    vocabulary: ref('VocabularyAudit'),
    patterns: ref('PatternsReport'),
    metadata: ref('Metadata'),
    usage: {
      type: 'object',
      required: ['type', 'seconds'],
      properties: { type: string({ const: 'duration' }), seconds: integer({ description: 'Whole seconds of audio, rounded up.' }) },
      description: "OpenAI's duration usage.",
    },
  },
};

const decoration: Schema = {
  type: 'object',
  description: 'Present while speakers are being attached (`processing`), or when that failed (`unavailable`: review the transcript).',
  required: ['status'],
  properties: {
    status: string({ enum: DECORATION_STATUSES }),
    stale_after: string({ format: 'date-time' }),
    review_required: boolean(),
  },
};

const jobTranscript: Schema = {
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
const jobTranscriptJson: Schema = {
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
    metadata: ref('Metadata'),
  },
};

const partialTranscript: Schema = {
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
  },
};

const acceptedJob: Schema = {
  type: 'object',
  required: ['id', 'object', 'status', 'created_at', 'model', 'poll_url', 'webhook'],
  properties: {
    id: string(),
    object: string({ const: JOB_OBJECT }),
    status: string({ enum: ACCEPTED_JOB_STATUSES }),
    created_at: string({ format: 'date-time' }),
    model: string({ const: JOB_MODEL, description: "The service's model; `request.model` chose the engine." }),
    poll_url: string({ format: 'uri' }),
    webhook: { type: 'object', required: ['requested'], properties: { requested: boolean() } },
  },
};

const job: Schema = {
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

const jobResult: Schema = {
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
  },
};

const jobError: Schema = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: string({ enum: JOB_FAILURE_CODES }), message: string() },
};

const jobProgress: Schema = {
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

const uploadForm: Schema = {
  type: 'object',
  required: ['method', 'url', 'fields', 'expires_in_seconds'],
  properties: {
    method: string({ const: 'POST' }),
    url: string({ format: 'uri' }),
    fields: { type: 'object', additionalProperties: string(), description: 'Send every entry exactly as given, plus the file part.' },
    expires_in_seconds: integer(),
  },
};

const createdJob: Schema = {
  allOf: [
    ref('Job'),
    {
      type: 'object',
      required: ['upload', 'complete_url', 'poll_url', 'min_audio_seconds', 'max_audio_seconds'],
      properties: {
        upload: ref('UploadForm'),
        complete_url: string({ format: 'uri' }),
        poll_url: string({ format: 'uri' }),
        min_audio_seconds: integer({ const: MIN_AUDIO_SECONDS_ADVISORY }),
        max_audio_seconds: integer({ description: 'The live authority on the longest audio a job accepts.' }),
      },
    },
  ],
};

const jobCreationRequest: Schema = {
  type: 'object',
  required: ['filename', 'content_type', 'content_length_bytes'],
  properties: {
    model: string({ const: JOB_MODEL, default: JOB_MODEL }),
    filename: string({ maxLength: MAX_FILENAME, description: 'Must match the declared content type.' }),
    content_type: string({ maxLength: MAX_CONTENT_TYPE, description: 'A supported audio MIME type.' }),
    content_length_bytes: integer({ minimum: 1, maximum: MAX_JOB_UPLOAD_BYTES, description: 'The exact byte length of the file.' }),
    response_format: string({ enum: RESPONSE_FORMATS, default: DEFAULT_JOB_RESPONSE_FORMAT }),
    language: string({
      pattern: LANGUAGE_TAG_PATTERN,
      description: "Default: the key's default language; without one, the dominant language is detected from the speech.",
    }),
    language_hints: stringArray({ minItems: 1, maxItems: MAX_LANGUAGE_HINTS, uniqueItems: true }),
    vocabulary: { type: 'array', items: string({ maxLength: MAX_TERM_LENGTH }), maxItems: MAX_TERMS },
    patterns: string({ maxLength: MAX_PATTERNS_LENGTH, description: `As on the inline route: at most ${MAX_PATTERNS} comma-separated expressions.` }),
    profile: string({ enum: PROFILES, default: DEFAULT_PROFILE, description: '`standard` and `turbo` are deprecated aliases of `default`.' }),
    diarize: boolean({ default: false }),
    max_speakers: integer({ minimum: 1, maximum: MAX_SPEAKERS, default: DEFAULT_MAX_SPEAKERS }),
    webhook_url: string({ format: 'uri', maxLength: MAX_WEBHOOK_URL_LENGTH, description: 'HTTPS, port 443. Needs an active webhook signing secret.' }),
  },
};

/** A job webhook event: the envelope every event shares, around its own `data` (which always ends with `poll_url`). */
function jobEvent(type: string, description: string, data: Record<string, Schema>): Schema {
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

const jobSucceededEvent = jobEvent(
  'transcription.job.succeeded',
  'Never carries transcript text, file names, result URLs or decoder errors: fetch the result from `data.poll_url`.',
  { job_id: string(), status: string({ const: 'succeeded' }) },
);

const jobFailedEvent = jobEvent(
  'transcription.job.failed',
  'Carries the failure code only (never its message, transcript text or file names): read the message from `data.poll_url`.',
  {
    job_id: string(),
    status: string({ const: 'failed' }),
    error: { type: 'object', required: ['code'], additionalProperties: false, properties: { code: string({ enum: JOB_FAILURE_CODES }) } },
  },
);

/** The translation form: the transcription form's fields that apply (translation-request.ts). */
const translationRequest: Schema = {
  type: 'object',
  required: ['file', 'model'],
  description: "Whisper's translate task: English text. Not medically evaluated: review before clinical use.",
  properties: {
    ...Object.fromEntries(
      TRANSLATION_FIELDS.filter((f) => f !== 'response_format').map((f) => [f, (transcriptionRequest.properties as Record<string, Schema>)[f]]),
    ),
    file: (transcriptionRequest.properties as Record<string, Schema>).file,
    response_format: string({ enum: TRANSLATION_FORMATS, default: DEFAULT_TRANSLATION_FORMAT }),
    language: string({ description: 'The spoken language (a tag, or `auto`); omitted: as on transcriptions. The text is English.' }),
  },
};

const model: Schema = {
  type: 'object',
  description: "OpenAI's model object, with what serves the model on this server.",
  required: ['id', 'object', 'created', 'owned_by', 'file', 'model_build', 'loaded'],
  additionalProperties: false,
  properties: {
    id: string({ enum: MODEL_IDS }),
    object: string({ const: 'model' }),
    created: integer({ description: 'Unix seconds: when the model file was last written.' }),
    owned_by: string({ const: MODEL_OWNER }),
    file: string({ description: 'The ggml file serving this model (its name, not its path).' }),
    model_build: string({ description: "As in results' `metadata.model_build`." }),
    loaded: boolean({ description: 'Its engine is open and takes work.' }),
  },
};

const modelList: Schema = {
  type: 'object',
  required: ['object', 'data'],
  additionalProperties: false,
  properties: { object: string({ const: 'list' }), data: { type: 'array', items: ref('Model') } },
};

const nullableNumber = (description: string): Schema => ({ type: ['number', 'null'], description });
const usageSafety: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['vocabulary_fallbacks', 'suspect_insertions', 'review_required', 'unsupported_language'],
  properties: {
    vocabulary_fallbacks: integer({ description: 'Stretches decoded again without the vocabulary prompt (safety check).' }),
    suspect_insertions: integer({ description: 'Vocabulary terms the safety check found inserted without being said.' }),
    review_required: integer({ description: 'Passages marked review_required.' }),
    unsupported_language: integer({ description: 'Work refused or failed because the language spoken is not supported.' }),
  },
};
const usageLine: Schema = {
  type: 'object',
  description: "A key's metered work for one route, model and language family. Counters only: no content, file names or text.",
  additionalProperties: false,
  required: [
    'route',
    'model',
    'language_family',
    'units',
    'audio_seconds',
    'audio_hours',
    'overage_hours',
    'cost',
    'diarization_seconds',
    'vocabulary_seconds',
    'patterns_seconds',
    'safety',
  ],
  properties: {
    route: string({ enum: [...USAGE_ROUTES] }),
    model: string(),
    language_family: string({ description: 'A language family, `mixed`, or `und` (no speech).' }),
    units: integer({ description: 'Requests, jobs or realtime slices (a minute of audio each, the last shorter).' }),
    audio_seconds: number(),
    audio_hours: number(),
    overage_hours: number({ description: "The part beyond the tenant's allowance." }),
    cost: number({ description: 'Charged for the overage, in currency units.' }),
    diarization_seconds: number(),
    vocabulary_seconds: number(),
    patterns_seconds: number(),
    safety: usageSafety,
  },
};
const usageBlock: Schema = {
  type: ['object', 'null'],
  description: 'Why new work in this pool is refused with 402 billing_blocked, or null.',
  additionalProperties: false,
  required: ['reason', 'resets_at'],
  properties: {
    reason: string({ enum: [...BLOCK_REASONS] }),
    resets_at: { type: ['string', 'null'], format: 'date-time', description: 'When the block lifts by itself (the next period); null: an operator must act.' },
  },
};
const usageKey: Schema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'plan',
    'billing_state',
    'revoked',
    'terms',
    'batch_seconds',
    'realtime_seconds',
    'overage_hours',
    'cost',
    'credit_left',
    'blocked',
    'lines',
  ],
  properties: {
    id: string(),
    plan: string({ enum: [...PLANS] }),
    billing_state: string({ enum: [...BILLING_STATES] }),
    revoked: boolean(),
    terms: {
      type: 'object',
      description:
        "The terms the key is billed under (its plan, with the operator's and the key's own overrides). Null: unlimited, no overage sold, or no cap.",
      additionalProperties: false,
      required: ['batch_included_hours', 'realtime_included_hours', 'batch_price_per_hour', 'realtime_price_per_hour', 'spend_cap'],
      properties: {
        batch_included_hours: nullableNumber('Batch audio-hours included per period, shared by the tenant.'),
        realtime_included_hours: nullableNumber('Realtime audio-hours included per period, shared by the tenant.'),
        batch_price_per_hour: nullableNumber('Per audio-hour beyond the batch allowance.'),
        realtime_price_per_hour: nullableNumber('Per audio-hour beyond the realtime allowance.'),
        spend_cap: nullableNumber('The most this key is charged in a period.'),
      },
    },
    batch_seconds: number(),
    realtime_seconds: number(),
    overage_hours: number(),
    cost: number(),
    credit_left: nullableNumber('Prepaid credit left; null: billed afterwards.'),
    blocked: { type: 'object', additionalProperties: false, required: ['batch', 'realtime'], properties: { batch: usageBlock, realtime: usageBlock } },
    lines: { type: 'array', items: usageLine },
  },
};
const usage: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['object', 'period', 'starts_at', 'resets_at', 'tenant', 'batch_seconds', 'realtime_seconds', 'keys'],
  properties: {
    object: string({ const: 'usage' }),
    period: string({ pattern: '^[0-9]{4}-[0-9]{2}$', description: 'The month the billing period starts in.' }),
    starts_at: string({ format: 'date-time' }),
    resets_at: string({ format: 'date-time', description: 'When allowances and spend caps reset.' }),
    tenant: string(),
    batch_seconds: number({ description: "The tenant's batch audio this period (its keys share the allowance)." }),
    realtime_seconds: number({ description: "The tenant's realtime audio this period." }),
    keys: { type: 'array', items: usageKey },
  },
};

export const schemas: Record<string, Schema> = {
  Error: errorEnvelope,
  TranscriptionRequest: transcriptionRequest,
  TranslationRequest: translationRequest,
  TranscriptionJson: transcriptionJson,
  TranscriptionStreamEvent: transcriptionStreamEvent,
  TranscriptionVerboseJson: transcriptionVerboseJson,
  Segment: segment,
  Word: word,
  SpeakerTiming: speakerTiming,
  LanguageDetection: languageDetection,
  VocabularyAudit: vocabularyAudit,
  PatternsReport: patternsReport,
  Metadata: metadata,
  AcceptedJob: acceptedJob,
  JobCreationRequest: jobCreationRequest,
  Job: job,
  CreatedJob: createdJob,
  UploadForm: uploadForm,
  JobResult: jobResult,
  JobTranscript: jobTranscript,
  JobTranscriptJson: jobTranscriptJson,
  PartialTranscript: partialTranscript,
  Decoration: decoration,
  JobError: jobError,
  JobProgress: jobProgress,
  JobSucceededEvent: jobSucceededEvent,
  JobFailedEvent: jobFailedEvent,
  Model: model,
  ModelList: modelList,
  Usage: usage,
};
