// The route schemas of the /v1/jobs routes. Fastify validates their path, query and header
// parameters; the JSON body of POST /v1/jobs is validated with JobCreationRequest after the
// contract's own checks (job-creation-request.ts), which decide between 400 and 422.
import { schemas } from '../openapi-components.js';
import { BEARER } from '../openapi-document.js';
import { answerHeaders, ERROR_RESPONSES, errorResponses, PROFILE_NOTICE_HEADERS } from '../openapi-responses.js';
import { ref } from '../openapi-schema-builders.js';
import type { ParameterSchema, RouteSchema } from '../openapi-types.js';
import { IDEMPOTENCY_HEADERS } from './transcription-schemas.js';
export const JOB_ID_PARAMS: ParameterSchema = { type: 'object', required: ['job_id'], properties: { job_id: { type: 'string' } } };

export const POLL_QUERY: ParameterSchema = {
  type: 'object',
  properties: {
    wait: {
      type: 'string',
      pattern: '^[0-9]{0,6}$',
      description:
        'Long poll: whole seconds to wait for a state change (status, or a new provisional revision) before answering; ' +
        '20 is the value used. Capped at 30: larger values wait 30 s.',
    },
    include_result: { type: 'string', enum: ['true', 'false'], description: '`true` puts a final result of up to 4 MiB inline in `result.content`.' },
  },
};

const JSON_RESULT = { oneOf: [ref('JobTranscript'), ref('JobTranscriptJson')] };

export const CREATE_JOB_SCHEMA: RouteSchema = {
  operationId: 'createJob',
  summary: 'Create a job with a presigned upload slot (long recordings, up to 1 GiB)',
  tags: ['jobs'],
  security: BEARER,
  headers: IDEMPOTENCY_HEADERS,
  body: schemas.JobCreationRequest,
  response: {
    '201': {
      description: 'The job, awaiting its upload: POST the file to `upload.url`, then POST `complete_url`.',
      headers: answerHeaders(PROFILE_NOTICE_HEADERS),
      content: { 'application/json': { schema: ref('CreatedJob') } },
    },
    ...errorResponses([400, 402, 403, 408, 409, 413, 415, 422]),
  },
};

export const COMPLETE_JOB_SCHEMA: RouteSchema = {
  operationId: 'completeJob',
  summary: "Freeze the job's upload and start transcription",
  tags: ['jobs'],
  security: BEARER,
  params: JOB_ID_PARAMS,
  response: {
    '202': { description: 'The job, now accepted.', headers: answerHeaders(), content: { 'application/json': { schema: ref('Job') } } },
    ...errorResponses([404, 409]),
  },
};

export const GET_JOB_SCHEMA: RouteSchema = {
  operationId: 'getJob',
  summary: 'Poll a job',
  tags: ['jobs'],
  security: BEARER,
  params: JOB_ID_PARAMS,
  querystring: POLL_QUERY,
  response: {
    '200': { description: 'The job.', headers: answerHeaders(), content: { 'application/json': { schema: ref('Job') } } },
    ...errorResponses([400, 404]),
  },
};

export const GET_JOB_RESULT_SCHEMA: RouteSchema = {
  operationId: 'getJobResult',
  summary: "Download a succeeded job's final result (the `download_url` of the job)",
  description: 'Same bearer key as the job. 404 once the result has expired.',
  tags: ['jobs'],
  security: BEARER,
  params: JOB_ID_PARAMS,
  response: {
    '200': {
      description:
        "The final result in the job's response format: `verbose_json` and `diarized_json` as JobTranscript, " +
        '`json` as JobTranscriptJson, `text` and `srt` as text/plain, `vtt` as text/vtt.',
      headers: answerHeaders(),
      content: { 'application/json': { schema: JSON_RESULT }, 'text/plain': { schema: { type: 'string' } }, 'text/vtt': { schema: { type: 'string' } } },
    },
    ...errorResponses([404]),
  },
};

export const GET_JOB_PARTIAL_SCHEMA: RouteSchema = {
  operationId: 'getJobPartialResult',
  summary: 'The provisional transcript of a running job (its `partial_result_url`)',
  description: 'Provisional: may be revised, never the final result. 404 when the job is not running or has no revision yet.',
  tags: ['jobs'],
  security: BEARER,
  params: JOB_ID_PARAMS,
  response: {
    '200': {
      description: 'The provisional transcript, with `text`, `segments`, `result_revision` and `completed_audio_seconds`.',
      headers: answerHeaders(),
      content: { 'application/json': { schema: ref('PartialTranscript') } },
    },
    ...errorResponses([404]),
  },
};

export const GET_JOB_REDACTED_AUDIO_SCHEMA: RouteSchema = {
  operationId: 'getJobRedactedAudio',
  summary: "Download a succeeded job's redacted audio (`result.redacted_audio.download_url` of the job)",
  description:
    'With `redact_audio`: the audio, silent over each redaction (padded 0.2 s each side), as a 16 kHz mono 16-bit WAV. ' +
    'Same bearer key as the job; kept and deleted with the result. 404 when the job has none or its result has expired.',
  tags: ['jobs'],
  security: BEARER,
  params: JOB_ID_PARAMS,
  response: {
    '200': {
      description: 'The redacted copy of the audio.',
      headers: answerHeaders(),
      content: { 'audio/wav': { schema: { type: 'string', format: 'binary' } } },
    },
    ...errorResponses([404]),
  },
};

export const GET_JOB_UNREDACTED_RESULT_SCHEMA: RouteSchema = {
  operationId: 'getJobUnredactedResult',
  summary: 'Download the unredacted transcript a succeeded job kept (`result.unredacted_result.download_url` of the job)',
  description:
    'With `redact_output=redacted_and_unredacted`: the transcript as the result is, but not redacted, in the same response format ' +
    '(before speakers are attached, for a diarized job). Only the key that created the job; kept and deleted with the result. ' +
    '404 when the job has none or its result has expired.',
  tags: ['jobs'],
  security: BEARER,
  params: JOB_ID_PARAMS,
  response: {
    '200': {
      description: "The unredacted transcript in the job's response format.",
      headers: answerHeaders(),
      content: { 'application/json': { schema: JSON_RESULT }, 'text/plain': { schema: { type: 'string' } }, 'text/vtt': { schema: { type: 'string' } } },
    },
    ...errorResponses([404]),
  },
};

export const DELETE_JOB_SCHEMA: RouteSchema = {
  operationId: 'deleteJob',
  summary: 'Cancellation is not supported',
  tags: ['jobs'],
  security: BEARER,
  params: JOB_ID_PARAMS,
  response: { '405': ERROR_RESPONSES.CancellationNotSupported, ...errorResponses([]) },
};
