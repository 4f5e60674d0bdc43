// Turns whatever a request failed with into the contract's error: an ApiError as thrown, the typed
// refusals of the layers below (audio, engine, pipeline, webhook admission, billing, the application's
// use cases) by their kinds, Fastify's and @fastify/multipart's own errors by their codes, a storage
// fault (disk full, data folder unwritable) into a 503 with Retry-After, and anything else into a
// generic 500. Every message here is a fixed server text: framework messages can quote the request
// (JSON parser errors quote the body, busboy's quote headers), so none is passed through.
import { ApplicationError, type ApplicationErrorKind } from '../application/application-errors.js';
import { AudioError, type AudioErrorCode } from '../audio/audio-errors.js';
import { BillingBlockedError } from '../billing/billing-errors.js';
import { EngineError } from '../engine/engine-errors.js';
import { PipelineError, type PipelineErrorKind } from '../pipeline/pipeline-errors.js';
import { isStoreUnavailable } from '../store/store-unavailable-error.js';
import { WebhookAdmissionError, type WebhookAdmissionErrorKind } from '../webhooks/webhook-admission-errors.js';
import { ApiError, type ApiErrorCode } from './api-error.js';
import { API_REFUSALS } from './api-refusals.js';
import { retryAfterHeader } from './retry-after.js';
import { isStorageFault, storageUnavailable } from './storage-fault.js';

export interface MappedError {
  apiError: ApiError;
  /** A server fault: log it with its stack. Client errors are not logged beyond the request line. */
  unexpected: boolean;
}

type Answer = readonly [status: number, code: ApiErrorCode, message: string, headers?: Record<string, string>];
type Status = readonly [status: number, code: ApiErrorCode];

// The only place the lower layers' refusals meet HTTP. Typed over every kind, so a kind added below
// without a status here fails the build. The message is the error's own: a fixed text of that layer.
const PIPELINE_STATUSES: Readonly<Record<PipelineErrorKind, Status>> = {
  invalid_request_field: [400, 'invalid_request'],
  unprocessable_request: [422, 'invalid_request'],
  entitlement_missing: [403, 'entitlement_denied'],
  // Inline, the caller learns it at once; a job stores it as a failure instead (src/jobs/job-failure.ts).
  unsupported_detected_language: [422, 'invalid_request'],
};

const WEBHOOK_ADMISSION_STATUSES: Readonly<Record<WebhookAdmissionErrorKind, Status>> = {
  signing_secret_missing: [422, 'invalid_request'],
  destination_not_allowed: [422, 'invalid_request'],
};

/** Engine queues drain in seconds: the client may retry soon. */
const ENGINE_RETRY_AFTER_SECONDS = 5;
/** A retried decode that timed out needs as long again: the client waits longer first. */
const DECODE_RETRY_AFTER_SECONDS = 30;

// The use cases' refusals: most answered with their own message, a few with the API's standing
// answer for the case (Retry-After for capacity, WWW-Authenticate for a key that stopped being valid).
const APPLICATION_ANSWERS: Readonly<Record<ApplicationErrorKind, (message: string) => ApiError>> = {
  audio_too_long: (message) => new ApiError(413, 'upload_too_large', message),
  audio_too_short: (message) => new ApiError(422, 'invalid_request', message),
  inline_only_option: (message) => new ApiError(422, 'invalid_request', message),
  unusable_known_speaker: (message) => new ApiError(422, 'invalid_request', message),
  voice_not_found: (message) => new ApiError(404, 'not_found', message),
  too_many_voices: (message) => new ApiError(422, 'invalid_request', message),
  engines_at_capacity: () => API_REFUSALS.capacity(ENGINE_RETRY_AFTER_SECONDS),
  transcription_cancelled: (message) => new ApiError(400, 'invalid_request', message),
  idempotency_conflict: (message) => new ApiError(409, 'idempotency_conflict', message),
  idempotency_in_progress: (message) => new ApiError(409, 'idempotency_in_progress', message),
  key_revoked: () => API_REFUSALS.missingKey(),
  credential_refused: () => API_REFUSALS.missingKey(),
  job_not_found: (message) => new ApiError(404, 'not_found', message),
  upload_not_complete: (message) => new ApiError(409, 'upload_not_complete', message),
  result_not_available: (message) => new ApiError(404, 'not_found', message),
};

/** Audio that cannot be read as sent. Answers are in the contract's words, not the audio layer's own messages. */
const UNDECODABLE: Answer = [400, 'invalid_request', 'the audio could not be decoded'];

const AUDIO_ANSWERS: Readonly<Record<AudioErrorCode, Answer>> = {
  unsupported_container: [415, 'unsupported_media_type', 'the audio container is not supported'],
  undecodable_audio: UNDECODABLE,
  audio_too_long: [413, 'upload_too_large', 'the audio is longer than this route accepts'],
  audio_too_short: UNDECODABLE,
  // A decoder that overran its time is the service's trouble, not the request's: retryable.
  decode_timeout: [503, 'service_unavailable', 'decoding the audio took too long', retryAfterHeader(DECODE_RETRY_AFTER_SECONDS)],
  decode_aborted: UNDECODABLE,
};

// The engine's two refusals a request can meet; every other engine failure is a server fault (500).
const ENGINE_ANSWERS: Readonly<Record<EngineError['code'], (() => ApiError) | null>> = {
  queue_full: () => API_REFUSALS.capacity(ENGINE_RETRY_AFTER_SECONDS),
  engine_closed: () => API_REFUSALS.serviceUnavailable(ENGINE_RETRY_AFTER_SECONDS, 'the service is shutting down'),
  model_load_failed: null,
  vad_model_load_failed: null,
  vad_not_configured: null,
  invalid_audio: null,
  transcription_failed: null,
};

const INVALID_JSON: Answer = [400, 'invalid_request', 'the request body is not valid JSON'];
const ABORTED: Answer = [400, 'invalid_request', 'the request ended before its body was complete'];
const MALFORMED_MULTIPART: Answer = [400, 'invalid_request', 'the multipart/form-data body is malformed'];

/** Errors of Fastify (FST_ERR_*), @fastify/multipart (FST_*) and Node streams, by code. */
const BY_CODE: Readonly<Record<string, Answer>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: INVALID_JSON,
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_request', 'the request body is empty'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid_request', 'the request body does not match its Content-Length'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'upload_too_large', 'the request body is larger than this route accepts'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'this route does not accept the request content type'],
  FST_ERR_BAD_URL: [400, 'invalid_request', 'the request path is not valid'],
  FST_ERR_MAX_PARAM_LENGTH: [400, 'invalid_request', 'a path parameter is too long'],
  // @fastify/multipart answers a non-multipart request with 406; the contract's status for it is 415.
  FST_INVALID_MULTIPART_CONTENT_TYPE: [415, 'unsupported_media_type', 'send the request as multipart/form-data'],
  FST_REQ_FILE_TOO_LARGE: [413, 'upload_too_large', 'the file is larger than this route accepts'],
  // Too many parts is a malformed form, not a large upload: 413's advice (use /v1/jobs) would not help.
  FST_PARTS_LIMIT: [400, 'invalid_request', 'the form has more parts than this route accepts'],
  FST_FILES_LIMIT: [400, 'invalid_request', 'the form has more files than this route accepts'],
  FST_FIELDS_LIMIT: [400, 'invalid_request', 'the form has more fields than this route accepts'],
  FST_PROTO_VIOLATION: [400, 'invalid_request', 'a form field name is not allowed'],
  FST_INVALID_JSON_FIELD_ERROR: [400, 'invalid_request', 'a form field declared as JSON is not valid JSON'],
  FST_MP_PREMATURE_CLOSE: ABORTED,
  ECONNRESET: ABORTED,
  ECONNABORTED: ABORTED,
  ERR_STREAM_PREMATURE_CLOSE: ABORTED,
};

/** For client errors without a known code: the contract's code for each status. */
const BY_STATUS: Readonly<Record<number, Answer>> = {
  400: [400, 'invalid_request', 'the request is not valid'],
  401: [401, 'unauthorized', 'a valid API key is required'],
  403: [403, 'entitlement_denied', 'this key is not entitled to the requested feature'],
  404: [404, 'not_found', 'the requested resource was not found'],
  405: [405, 'method_not_allowed', 'this method is not allowed on this path'],
  408: [408, 'upload_timeout', 'the request was not received in time; retry as a new request'],
  413: [413, 'upload_too_large', 'the request is larger than this route accepts'],
  415: [415, 'unsupported_media_type', 'the request content type is not supported'],
  422: [422, 'invalid_request', 'the request could not be processed'],
};

// busboy (under @fastify/multipart) raises plain Errors without codes for malformed bodies.
const MALFORMED_MULTIPART_MESSAGES = [
  /^Multipart: Boundary not found$/,
  /^Unexpected end of multipart data$/,
  /terminated early due to unexpected end of multipart data$/,
  /^Unsupported Content-Type\.$/,
  /^Missing Content-Type-header\.$/,
];

const VALIDATION_CONTEXTS: Readonly<Record<string, string>> = {
  body: 'body field',
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

const SCHEMA_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export function mapError(error: unknown): MappedError {
  if (error instanceof ApiError) return { apiError: error, unexpected: false };
  if (error instanceof PipelineError) return expected([...PIPELINE_STATUSES[error.kind], error.message]);
  if (error instanceof WebhookAdmissionError) return expected([...WEBHOOK_ADMISSION_STATUSES[error.kind], error.message]);
  if (error instanceof ApplicationError) return { apiError: APPLICATION_ANSWERS[error.kind](error.message), unexpected: false };
  if (error instanceof AudioError) return expected(AUDIO_ANSWERS[error.code]);
  const engineAnswer = error instanceof EngineError ? ENGINE_ANSWERS[error.code] : null;
  if (engineAnswer) return { apiError: engineAnswer(), unexpected: false };
  // The message names the limit and when it lifts (billing-errors.ts), never the account's figures.
  if (error instanceof BillingBlockedError) return expected([402, 'billing_blocked', error.message]);
  // Logged for the operator (the database or bucket is down); retryable for the client, and nothing
  // was acknowledged.
  if (isStoreUnavailable(error)) return { apiError: storeUnavailable(), unexpected: true };
  const fields = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    statusCode?: unknown;
    message?: unknown;
    validation?: unknown;
    validationContext?: unknown;
  };

  if (Array.isArray(fields.validation)) {
    return expected([400, 'invalid_request', validationMessage(fields.validation, fields.validationContext)]);
  }
  if (typeof fields.code === 'string' && Object.hasOwn(BY_CODE, fields.code)) return expected(BY_CODE[fields.code]);
  if (typeof fields.message === 'string' && MALFORMED_MULTIPART_MESSAGES.some((pattern) => pattern.test(fields.message as string))) {
    return expected(MALFORMED_MULTIPART);
  }
  // Still a server fault for the log (an operator has a disk to free), but a retryable one for the client.
  if (isStorageFault(error)) return { apiError: storageUnavailable(), unexpected: true };
  const status = fields.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return expected(BY_STATUS[status] ?? BY_STATUS[400]);
  }
  return { apiError: new ApiError(500, 'internal_error', 'an internal error occurred; give the x-request-id to support'), unexpected: true };
}

/** A restarting database is usually back within seconds. */
const STORE_RETRY_AFTER_SECONDS = 5;

function storeUnavailable(): ApiError {
  return API_REFUSALS.serviceUnavailable(
    STORE_RETRY_AFTER_SECONDS,
    'a store of the service is unavailable and nothing was stored; retry after the Retry-After interval',
  );
}

function expected([status, code, message, headers]: Answer): MappedError {
  return { apiError: new ApiError(status, code, message, headers), unexpected: false };
}

/**
 * Names a field only when the name comes from the route's schema (its `properties` or `required`),
 * never from the request, so a client cannot get its own text reflected.
 */
function validationMessage(issues: unknown[], context: unknown): string {
  const where = (typeof context === 'string' && VALIDATION_CONTEXTS[context]) || 'field';
  const issue = (issues[0] ?? {}) as { keyword?: unknown; schemaPath?: unknown; params?: { missingProperty?: unknown }; parentSchema?: unknown };
  const path = typeof issue.schemaPath === 'string' ? schemaPropertyPath(issue.schemaPath) : [];
  if (issue.keyword === 'required' && typeof issue.params?.missingProperty === 'string') {
    const name = [...path, issue.params.missingProperty].join('.');
    if (SCHEMA_NAME.test(name)) return `the ${where} '${name}' is required`;
  }
  const name = path.join('.');
  // An unknown name: the names the schema takes are listed instead (the one sent is the client's text).
  const known = issue.keyword === 'additionalProperties' ? schemaPropertyNames(issue.parentSchema) : null;
  if (known && path.length === 0) return `a ${where} is not one this route takes (${known.length > 0 ? `only: ${known.join(', ')}` : 'none'})`;
  if (name !== '' && SCHEMA_NAME.test(name)) return `the ${where} '${name}' is not valid`;
  return 'the request is not valid';
}

/** The `properties` an object schema names, or null when that is not a schema with plain names. */
function schemaPropertyNames(schema: unknown): string[] | null {
  const properties = (typeof schema === 'object' && schema !== null ? schema : {}) as { properties?: unknown };
  if (typeof properties.properties !== 'object' || properties.properties === null) return null;
  const names = Object.keys(properties.properties);
  return names.every((n) => SCHEMA_NAME.test(n)) ? names : null;
}

/** `#/properties/a/properties/b/type` -> ['a', 'b']: the schema's own property names. */
function schemaPropertyPath(schemaPath: string): string[] {
  const parts = schemaPath.replace(/^#\//, '').split('/');
  const names: string[] = [];
  for (let i = 0; i + 1 < parts.length && parts[i] === 'properties'; i += 2) {
    names.push(parts[i + 1].replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return names;
}
