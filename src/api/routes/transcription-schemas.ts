// The route schemas of POST /v1/audio/transcriptions and /v1/audio/translations. Their multipart
// forms are read as streams by transcription-request.ts and translation-request.ts, which enforce
// the fields the components describe (TranscriptionRequest, TranslationRequest).
import { schemas } from '../openapi-components.js';
import { BEARER } from '../openapi-document.js';
import { answerHeaders, errorResponses, PROFILE_NOTICE_HEADERS, RESPONSE_HEADERS } from '../openapi-responses.js';
import { ref } from '../openapi-schema-builders.js';
import type { ParameterSchema, Response, RouteSchema } from '../openapi-types.js';
/** The Idempotency-Key header of routes that create work. */
export const IDEMPOTENCY_HEADERS: ParameterSchema = {
  type: 'object',
  properties: {
    'Idempotency-Key': {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: 'Scoped to the API credential and retained 24 hours. Accepted and ignored on inline 200 answers.',
    },
  },
};

const AUDIO_TYPES = 'audio/wav, audio/mpeg, audio/mp4, audio/webm, audio/ogg, audio/flac, audio/aac, application/octet-stream';
const CREATE_ERRORS = errorResponses([400, 402, 403, 408, 409, 413, 415, 422]);

const acceptedAsJob = (extra = {}): Response => ({
  description: 'Accepted as a job: poll `poll_url` (also in Location).',
  headers: answerHeaders({ Location: RESPONSE_HEADERS.location, 'Retry-After': RESPONSE_HEADERS.retryAfter, ...extra }),
  content: { 'application/json': { schema: ref('AcceptedJob') } },
});

/**
 * The JSON answers: `json` is a closed `{text}` (with `logprobs` when asked) and the verbose shape
 * requires `task` and `segments`, so every answer matches exactly one branch.
 */
const transcriptJson = { oneOf: [ref('TranscriptionJson'), ref('TranscriptionVerboseJson')] };

export const CREATE_TRANSCRIPTION_SCHEMA: RouteSchema = {
  operationId: 'createTranscription',
  summary: 'Transcribe an uploaded audio file',
  description:
    'Audio at or below the inline boundary without `webhook_url` is answered inline (200); ' +
    'longer audio, or any request with `webhook_url`, is accepted as a job (202) once the upload is durably stored.',
  tags: ['transcriptions'],
  security: BEARER,
  headers: IDEMPOTENCY_HEADERS,
  multipartBody: { schema: schemas.TranscriptionRequest, encoding: { file: { contentType: AUDIO_TYPES } } },
  response: {
    '200': {
      description:
        'The transcript by `response_format`: `json` as TranscriptionJson ({text}, with `logprobs` when asked); ' +
        '`verbose_json` and `diarized_json` as TranscriptionVerboseJson; `text` and `srt` as text/plain; `vtt` as text/vtt. ' +
        'With `stream=true`: server-sent events as the text is decoded.',
      headers: answerHeaders(PROFILE_NOTICE_HEADERS),
      content: {
        'application/json': { schema: transcriptJson },
        'text/plain': { schema: { type: 'string' } },
        'text/vtt': { schema: { type: 'string' } },
        'text/event-stream': { schema: ref('TranscriptionStreamEvent') },
      },
    },
    '202': acceptedAsJob(PROFILE_NOTICE_HEADERS),
    ...CREATE_ERRORS,
  },
};

export const CREATE_TRANSLATION_SCHEMA: RouteSchema = {
  operationId: 'createTranslation',
  summary: 'Translate an uploaded audio file into English text',
  description:
    "Whisper's translate task, routed as transcriptions are (inline, or a job above the inline boundary or with `webhook_url`). " +
    'Not medically evaluated: review before clinical use. ' +
    'Speakers, word times, vocabulary, patterns and streaming are transcription features (422 here).',
  tags: ['transcriptions'],
  security: BEARER,
  headers: IDEMPOTENCY_HEADERS,
  multipartBody: { schema: schemas.TranslationRequest, encoding: { file: { contentType: AUDIO_TYPES } } },
  response: {
    '200': {
      description:
        'The translation by `response_format`: `json` as TranscriptionJson; ' +
        '`verbose_json` as TranscriptionVerboseJson with `task: translate`, `language: en` and `source_language`; ' +
        '`text` and `srt` as text/plain; `vtt` as text/vtt.',
      headers: answerHeaders(),
      content: {
        'application/json': { schema: transcriptJson },
        'text/plain': { schema: { type: 'string' } },
        'text/vtt': { schema: { type: 'string' } },
      },
    },
    '202': acceptedAsJob(),
    ...CREATE_ERRORS,
  },
};
