// The OpenAPI 3.1 description of the public HTTP contract, built as a typed object. It documents
// what clients may rely on: the routes, their inputs, success bodies and every error status, all of
// which share the one error envelope.
import { API_VERSION } from '../pipeline/response-body.js';
import { ref, schemas } from './openapi-schemas.js';
import type { Header, OpenApiDocument, Operation, Parameter, Reference, Response, SecurityRequirement } from './openapi-types.js';

const BEARER: SecurityRequirement[] = [{ bearerAuth: [] }];
const header = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });
const parameter = (name: string): Reference => ({ $ref: `#/components/parameters/${name}` });
const response = (name: string): Reference => ({ $ref: `#/components/responses/${name}` });
const json = (schemaName: string) => ({ 'application/json': { schema: ref(schemaName) } });

const headers: Record<string, Header> = {
  RequestId: { description: 'The request id; give it to support.', required: true, schema: { type: 'string', pattern: '^req_[0-9A-Za-z]+$' } },
  RetryAfter: { description: 'Whole seconds to wait before retrying (at least 1).', required: true, schema: { type: 'integer', minimum: 1 } },
  Location: { description: 'The job to poll.', required: true, schema: { type: 'string', format: 'uri' } },
  WwwAuthenticate: { required: true, schema: { type: 'string', const: 'Bearer' } },
  Allow: { description: 'The methods this path accepts.', required: true, schema: { type: 'string' } },
  Deprecation: { description: 'Present when a deprecated `profile` (standard, turbo) was requested.', schema: { type: 'string', const: 'true' } },
  Warning: { description: `Present with Deprecation, e.g. 299 - "profile 'turbo' is deprecated; use 'default'".`, schema: { type: 'string' } },
};

const HEADER_COMPONENTS: Record<string, string> = {
  'Retry-After': 'RetryAfter',
  'WWW-Authenticate': 'WwwAuthenticate',
  Allow: 'Allow',
};

function errorResponse(description: string, extraHeaders: string[] = []): Response {
  const all: Record<string, Reference> = { 'x-request-id': header('RequestId') };
  for (const name of extraHeaders) all[name] = header(HEADER_COMPONENTS[name]);
  return { description, headers: all, content: json('Error') };
}

const responses: Record<string, Response> = {
  BadRequest: errorResponse('`invalid_request`: malformed request, unsupported model option or mismatched media type.'),
  Unauthorized: errorResponse('`unauthorized`: missing or invalid API key.', ['WWW-Authenticate']),
  BillingBlocked: errorResponse('`billing_blocked`: usage is paused. Result retrieval keeps working.'),
  EntitlementDenied: errorResponse('`entitlement_denied`: the key is not entitled to a requested feature (patterns, automatic language detection).'),
  NotFound: errorResponse('`not_found`: unknown job, or a job owned by another key.'),
  MethodNotAllowed: errorResponse('`method_not_allowed`: the path exists but not with this method.', ['Allow']),
  CancellationNotSupported: errorResponse('`cancellation_not_supported`: jobs cannot be cancelled in v1.'),
  UploadTimeout: errorResponse('`upload_timeout` or `upload_too_slow`: retry as a new request.'),
  Conflict: errorResponse('`idempotency_conflict` or `idempotency_in_progress`; on the complete call, `upload_not_complete`.'),
  UploadTooLarge: errorResponse("`upload_too_large`: the file or its duration exceeds the route's limit."),
  UnsupportedMediaType: errorResponse('`unsupported_media_type`: the request body type or the audio container is not supported.'),
  Unprocessable: errorResponse('`invalid_request`: unsupported language or detection, bad vocabulary, patterns, hints or feature combination.'),
  RateLimited: errorResponse('`rate_limited`: rate, queue or capacity limit. Honour Retry-After with jitter.', ['Retry-After']),
  InternalError: errorResponse('`internal_error`: an unexpected server fault. Retry with backoff; give x-request-id to support.'),
  ServiceUnavailable: errorResponse('`capacity_unavailable` or `service_unavailable`. Honour Retry-After.', ['Retry-After']),
};

const ERROR_RESPONSE_BY_STATUS: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '402': 'BillingBlocked',
  '403': 'EntitlementDenied',
  '404': 'NotFound',
  '405': 'MethodNotAllowed',
  '408': 'UploadTimeout',
  '409': 'Conflict',
  '413': 'UploadTooLarge',
  '415': 'UnsupportedMediaType',
  '422': 'Unprocessable',
  '429': 'RateLimited',
  '500': 'InternalError',
  '503': 'ServiceUnavailable',
};

/** The error responses of an operation by status; 401, 429, 500 and 503 can happen on any. */
function errors(...statuses: string[]): Record<string, Reference> {
  const out: Record<string, Reference> = {};
  for (const status of [...statuses, '401', '429', '500', '503'].sort()) out[status] = response(ERROR_RESPONSE_BY_STATUS[status]);
  return out;
}

const parameters: Record<string, Parameter> = {
  JobId: { name: 'job_id', in: 'path', required: true, schema: { type: 'string' } },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    description: 'Scoped to the API credential and retained 24 hours. Accepted and ignored on inline 200 answers.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  },
  Wait: {
    name: 'wait',
    in: 'query',
    description:
      'Long poll: seconds to wait for a state change (status, or a new provisional revision) before answering; 20 is the value used. Capped at 30: larger values wait 30 s.',
    schema: { type: 'integer', minimum: 0 },
  },
  IncludeResult: {
    name: 'include_result',
    in: 'query',
    description: '`true` puts a final result of up to 4 MiB inline in `result.content`.',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
};

const createTranscription: Operation = {
  operationId: 'createTranscription',
  summary: 'Transcribe an uploaded audio file',
  description:
    'Audio at or below the inline boundary without `webhook_url` is answered inline (200); longer audio, or any request with `webhook_url`, is accepted as a job (202) once the upload is durably stored.',
  tags: ['transcriptions'],
  security: BEARER,
  parameters: [parameter('IdempotencyKey')],
  requestBody: {
    required: true,
    content: {
      'multipart/form-data': {
        schema: ref('TranscriptionRequest'),
        encoding: { file: { contentType: 'audio/wav, audio/mpeg, audio/mp4, audio/webm, audio/ogg, audio/flac, audio/aac, application/octet-stream' } },
      },
    },
  },
  responses: {
    '200': {
      description:
        'The transcript: `text` and `srt` as text/plain, `vtt` as text/vtt, `json` as {text} (with `logprobs` when asked), `verbose_json` and `diarized_json` as the verbose shape; with `stream=true`, server-sent events as the text is decoded.',
      headers: { 'x-request-id': header('RequestId'), Deprecation: header('Deprecation'), Warning: header('Warning') },
      content: {
        'application/json': { schema: { oneOf: [ref('TranscriptionVerboseJson'), ref('TranscriptionJson')] } },
        'text/plain': { schema: { type: 'string' } },
        'text/vtt': { schema: { type: 'string' } },
        'text/event-stream': { schema: ref('TranscriptionStreamEvent') },
      },
    },
    '202': {
      description: 'Accepted as a job: poll `poll_url` (also in Location).',
      headers: {
        'x-request-id': header('RequestId'),
        Location: header('Location'),
        'Retry-After': header('RetryAfter'),
        Deprecation: header('Deprecation'),
        Warning: header('Warning'),
      },
      content: json('AcceptedJob'),
    },
    ...errors('400', '402', '403', '408', '409', '413', '415', '422'),
  },
};

const createTranslation: Operation = {
  operationId: 'createTranslation',
  summary: 'Translate an uploaded audio file into English text',
  description:
    "Whisper's translate task, routed as transcriptions are (inline, or a job above the inline boundary or with `webhook_url`). Not medically evaluated: review before clinical use. Speakers, word times, vocabulary, patterns and streaming are transcription features (422 here).",
  tags: ['transcriptions'],
  security: BEARER,
  parameters: [parameter('IdempotencyKey')],
  requestBody: { required: true, content: { 'multipart/form-data': { schema: ref('TranslationRequest') } } },
  responses: {
    '200': {
      description: 'The translation: `text` and `srt` as text/plain, `vtt` as text/vtt, `json` as {text}, `verbose_json` with `task: translate`, `language: en` and `source_language`.',
      headers: { 'x-request-id': header('RequestId') },
      content: {
        'application/json': { schema: { oneOf: [ref('TranscriptionVerboseJson'), ref('TranscriptionJson')] } },
        'text/plain': { schema: { type: 'string' } },
        'text/vtt': { schema: { type: 'string' } },
      },
    },
    '202': { description: 'Accepted as a job: poll `poll_url` (also in Location).', headers: { 'x-request-id': header('RequestId'), Location: header('Location'), 'Retry-After': header('RetryAfter') }, content: json('AcceptedJob') },
    ...errors('400', '402', '403', '408', '409', '413', '415', '422'),
  },
};

const createJob: Operation = {
  operationId: 'createJob',
  summary: 'Create a job with a presigned upload slot (long recordings, up to 1 GiB)',
  tags: ['jobs'],
  security: BEARER,
  parameters: [parameter('IdempotencyKey')],
  requestBody: { required: true, content: json('JobCreationRequest') },
  responses: {
    '201': {
      description: 'The job, awaiting its upload: POST the file to `upload.url`, then POST `complete_url`.',
      headers: { 'x-request-id': header('RequestId'), Deprecation: header('Deprecation'), Warning: header('Warning') },
      content: json('CreatedJob'),
    },
    ...errors('400', '402', '403', '408', '409', '413', '415', '422'),
  },
};

const completeJob: Operation = {
  operationId: 'completeJob',
  summary: "Freeze the job's upload and start transcription",
  tags: ['jobs'],
  security: BEARER,
  parameters: [parameter('JobId')],
  responses: {
    '202': { description: 'The job, now accepted.', headers: { 'x-request-id': header('RequestId') }, content: json('Job') },
    ...errors('404', '409'),
  },
};

const getJob: Operation = {
  operationId: 'getJob',
  summary: 'Poll a job',
  tags: ['jobs'],
  security: BEARER,
  parameters: [parameter('JobId'), parameter('Wait'), parameter('IncludeResult')],
  responses: {
    '200': { description: 'The job.', headers: { 'x-request-id': header('RequestId') }, content: json('Job') },
    ...errors('400', '404'),
  },
};

const getJobResult: Operation = {
  operationId: 'getJobResult',
  summary: "Download a succeeded job's final result (the `download_url` of the job)",
  description: 'Same bearer key as the job. 404 once the result has expired.',
  tags: ['jobs'],
  security: BEARER,
  parameters: [parameter('JobId')],
  responses: {
    '200': {
      description: 'The final result in the job\'s response format.',
      headers: { 'x-request-id': header('RequestId') },
      content: { 'application/json': { schema: ref('JobTranscript') }, 'text/plain': { schema: { type: 'string' } } },
    },
    ...errors('404'),
  },
};

const getJobPartial: Operation = {
  operationId: 'getJobPartialResult',
  summary: 'The provisional transcript of a running job (its `partial_result_url`)',
  description: 'Provisional: may be revised, never the final result. 404 when the job is not running or has no revision yet.',
  tags: ['jobs'],
  security: BEARER,
  parameters: [parameter('JobId')],
  responses: {
    '200': {
      description: 'The provisional transcript, with `text`, `segments`, `result_revision` and `completed_audio_seconds`.',
      headers: { 'x-request-id': header('RequestId') },
      content: { 'application/json': { schema: { type: 'object', required: ['text', 'provisional'], properties: { text: { type: 'string' }, provisional: { type: 'boolean', const: true } } } } },
    },
    ...errors('404'),
  },
};

const uploadToSlot: Operation = {
  operationId: 'uploadJobAudio',
  summary: "The presigned upload target (a job's `upload.url`)",
  description:
    "Behaves like S3's browser POST: multipart/form-data with every `upload.fields` entry unchanged, then the `file` part of exactly `content_length_bytes`. No API key: the signed form authorizes it. Errors are S3-style XML documents (`<Error><Code>`), e.g. 403 AccessDenied `Invalid according to Policy: Policy expired.`, 403 SignatureDoesNotMatch, 400 EntityTooSmall/EntityTooLarge, 503 ServiceUnavailable when storage fails.",
  tags: ['jobs'],
  security: [],
  parameters: [parameter('JobId')],
  requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } }, additionalProperties: { type: 'string' } } } } },
  responses: {
    '204': { description: 'Stored durably; now POST `complete_url`.', headers: { 'x-request-id': header('RequestId') } },
    '400': { description: 'S3-style XML error: malformed form (including a multipart boundary outside RFC 2046), missing or repeated field, a field over 16 KiB (MaxPostPreDataLengthExceeded), wrong length.', headers: { 'x-request-id': header('RequestId') }, content: { 'application/xml': { schema: { type: 'string' } } } },
    '403': { description: 'S3-style XML error: bad signature, changed or extra field, expired or used form, or a form whose issuing API key was revoked (AccessDenied).', headers: { 'x-request-id': header('RequestId') }, content: { 'application/xml': { schema: { type: 'string' } } } },
    '409': { description: 'S3-style XML error OperationAborted: another upload to this job is in progress.', headers: { 'x-request-id': header('RequestId') }, content: { 'application/xml': { schema: { type: 'string' } } } },
    '503': { description: 'S3-style XML error ServiceUnavailable: storage failed; nothing was stored.', headers: { 'x-request-id': header('RequestId') }, content: { 'application/xml': { schema: { type: 'string' } } } },
  },
};

const deleteJob: Operation = {
  operationId: 'deleteJob',
  summary: 'Cancellation is not supported',
  tags: ['jobs'],
  security: BEARER,
  parameters: [parameter('JobId')],
  responses: { '405': response('CancellationNotSupported'), ...errors() },
};

const listModels: Operation = {
  operationId: 'listModels',
  summary: 'The models this server answers to (OpenAI list shape)',
  tags: ['models'],
  security: BEARER,
  responses: { '200': { description: 'Both model ids, with the file serving each.', headers: { 'x-request-id': header('RequestId') }, content: json('ModelList') }, ...errors() },
};

const retrieveModel: Operation = {
  operationId: 'retrieveModel',
  summary: 'One model',
  tags: ['models'],
  security: BEARER,
  parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }],
  responses: { '200': { description: 'The model.', headers: { 'x-request-id': header('RequestId') }, content: json('Model') }, ...errors('404') },
};

const getOpenApi: Operation = {
  operationId: 'getOpenApiDocument',
  summary: 'This document',
  tags: ['meta'],
  security: [],
  responses: {
    '200': {
      description: 'The OpenAPI 3.1 document.',
      headers: { 'x-request-id': header('RequestId') },
      content: { 'application/json': { schema: { type: 'object' } } },
    },
    '429': response('RateLimited'),
    '500': response('InternalError'),
    '503': response('ServiceUnavailable'),
  },
};

export function buildOpenApiDocument(options: { serverUrl?: string } = {}): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc-stt medical speech-to-text',
      version: API_VERSION,
      description: 'Every request carries `Authorization: Bearer <API_KEY>`. Every error is `{"error":{"code","message"}}`.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    security: BEARER,
    tags: [{ name: 'transcriptions' }, { name: 'jobs' }, { name: 'meta' }],
    paths: {
      '/v1/audio/transcriptions': { post: createTranscription },
      '/v1/jobs': { post: createJob },
      '/v1/jobs/{job_id}/complete': { post: completeJob },
      '/v1/jobs/{job_id}': { get: getJob, delete: deleteJob },
      '/v1/jobs/{job_id}/result': { get: getJobResult },
      '/v1/jobs/{job_id}/partial': { get: getJobPartial },
      '/v1/uploads/{job_id}': { post: uploadToSlot },
      '/v1/audio/translations': { post: createTranslation },
      '/v1/models': { get: listModels },
      '/v1/models/{model}': { get: retrieveModel },
      '/v1/openapi.json': { get: getOpenApi },
    },
    // OpenAPI 3.1 webhooks: what this service POSTs to a job's `webhook_url`.
    webhooks: {
      'transcription.job.succeeded': {
        post: {
          operationId: 'jobSucceededWebhook',
          summary: 'A job reached `succeeded` (sent once; at least once on the wire — deduplicate by `webhook-id`)',
          description:
            'Signed the Standard Webhooks way: `webhook-signature` is `v1,` + Base64(HMAC-SHA256(key, `<webhook-id>.<webhook-timestamp>.<raw body>`)), the key being the Base64-decoded secret after its `whsec_` prefix. Reject timestamps outside ±300 s. Attempts: immediately, then after 1 min, 5 min, 30 min, 2 h and 8 h; 10 s each; redirects are not followed; any 2xx acknowledges.',
          security: [],
          parameters: WEBHOOK_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: ref('JobSucceededEvent') } } },
          responses: { '2XX': { description: 'Accepted durably by the receiver; no further attempts.' } },
        },
      },
      'transcription.job.failed': {
        post: {
          operationId: 'jobFailedWebhook',
          summary: 'A job reached `failed` (sent once; at least once on the wire — deduplicate by `webhook-id`)',
          description: 'Signed, attempted and acknowledged exactly like `transcription.job.succeeded`. Not sent for upload slots closed by a key revocation.',
          security: [],
          parameters: WEBHOOK_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: ref('JobFailedEvent') } } },
          responses: { '2XX': { description: 'Accepted durably by the receiver; no further attempts.' } },
        },
      },
    },
    components: {
      schemas,
      responses,
      parameters,
      headers,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as the bearer token.' } },
    },
  };
}

/** The Standard Webhooks headers of every event attempt. */
const WEBHOOK_HEADERS: Parameter[] = [
  { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, description: 'Stable event id (`evt_...`), for deduplication.' },
  { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string' }, description: 'Unix seconds of this attempt.' },
  { name: 'webhook-signature', in: 'header', required: true, schema: { type: 'string' }, description: '`v1,<base64>`.' },
];
