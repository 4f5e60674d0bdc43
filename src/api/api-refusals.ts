// The API's own refusals, in one catalogue (like Fastify's lib/errors.js): every answer src/api gives
// on its own account, by name, with its status, code, fixed message and headers. The lower layers'
// typed errors are mapped in error-mapping.ts. Messages are fixed server texts: they never echo
// request content; a parameter is only ever a server value (a limit, a Retry-After, a feature name).
import { MODEL_IDS } from '../domain/model-ids.js';
import { ApiError } from './api-error.js';
import { retryAfterHeader } from './retry-after.js';

export const API_REFUSALS = {
  // Authentication and limits (authenticate.ts, rate-limit.ts).
  /** No key, an unknown one or a revoked one: one answer for all three. */
  missingKey: () =>
    new ApiError(401, 'unauthorized', 'a valid API key is required: send Authorization: Bearer <API_KEY>', {
      'www-authenticate': 'Bearer',
    }),
  // Node would keep the first and drop the rest: which credential a request carries must never depend on a parser's choice.
  repeatedAuthorization: () => new ApiError(400, 'invalid_request', 'send exactly one Authorization header'),
  /** `feature` is the server's own name for the entitlement, never request content. */
  entitlementDenied: (feature: string) => new ApiError(403, 'entitlement_denied', `this key is not entitled to ${feature}`),
  rateLimited: (retryAfterSeconds: number) =>
    new ApiError(429, 'rate_limited', 'too many requests; retry after the Retry-After interval', retryAfterHeader(retryAfterSeconds)),

  // Rules of HTTP itself (http-requirements.ts, node-http-server.ts, client-error.ts).
  // RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host header.
  missingHost: () => new ApiError(400, 'invalid_request', 'an HTTP/1.1 request must carry a Host header'),
  // RFC 9110 §10.1.1 allows 417; the contract has no 417 and files a malformed request under 400.
  unmetExpectation: () => new ApiError(400, 'invalid_request', 'the Expect header cannot be met: only 100-continue is supported'),
  // A malformed request for this server: there is no resource to list in a 405's Allow header.
  notAProxy: () => new ApiError(400, 'invalid_request', 'this server is not a proxy: CONNECT is not supported'),
  requestTimeout: () => new ApiError(408, 'upload_timeout', 'the request was not received in time; retry as a new request'),
  headersTooLarge: () => new ApiError(431, 'invalid_request', 'the request headers are too large'),
  notHttp: () => new ApiError(400, 'invalid_request', 'the request is not valid HTTP'),

  // Paths and methods (error-envelope.ts and the routes).
  methodNotAllowed: (allowedMethods: readonly string[]) =>
    new ApiError(405, 'method_not_allowed', 'this method is not allowed on this path; see the Allow header', {
      allow: allowedMethods.join(', '),
    }),
  noSuchPath: () => new ApiError(404, 'not_found', 'no resource exists at this path'),
  // The contract's own code for DELETE on a job, rather than the generic 405.
  cancellationNotSupported: () => new ApiError(405, 'cancellation_not_supported', 'jobs cannot be cancelled in v1', { allow: 'GET' }),
  unknownModel: () => new ApiError(404, 'not_found', `no such model: this server has ${MODEL_IDS.join(' and ')}`),
  usageNotAvailable: () => new ApiError(404, 'not_found', 'no usage is available for this tenant with this key'),
  // Node joins repeated headers with ", ": two keys must not silently become a third.
  repeatedIdempotencyKey: () => new ApiError(400, 'invalid_request', 'send at most one Idempotency-Key header'),

  // Uploads (routes/receive-upload.ts, routes/upload-monitor.ts, routes/job-creation-request.ts).
  notMultipart: () => new ApiError(415, 'unsupported_media_type', 'send the audio as multipart/form-data'),
  // Refused before busboy sees it (it throws a plain Error, a 500, on boundaries over 256 characters).
  badBoundary: () => new ApiError(400, 'invalid_request', 'the multipart boundary is missing or invalid (RFC 2046: 1 to 70 characters)'),
  // 400 rather than 422: the value was never read whole, so the refusal is of the form, not of the field's content.
  fieldTooLong: (maxBytes: number) => new ApiError(400, 'invalid_request', `a form field is longer than ${maxBytes} bytes`),
  /** `advice`: what a client with a larger file can do (the route's own; a transcription's is /v1/jobs). */
  tooLarge: (maxBytes: number, advice = 'use /v1/jobs for larger files') =>
    new ApiError(413, 'upload_too_large', `the file exceeds ${maxBytes} bytes; ${advice}`),
  notOneFile: () => new ApiError(400, 'invalid_request', 'send exactly one file, in the field named file'),
  // Taking the first or the last of two values would be a silent guess at what the client meant.
  repeatedField: () => new ApiError(400, 'invalid_request', 'a form field appears more than once; send each field once'),
  missingFile: () => new ApiError(400, 'invalid_request', 'the file field is required'),
  emptyFile: () => new ApiError(400, 'invalid_request', 'the file is empty'),
  uploadStalled: () => new ApiError(408, 'upload_timeout', 'the upload stalled; retry as a new request'),
  uploadTooSlow: () => new ApiError(408, 'upload_too_slow', 'the upload stayed below the minimum transfer rate; retry as a new request'),
  unsupportedJobContentType: () => new ApiError(415, 'unsupported_media_type', 'content_type is not a supported audio type'),
  jobUploadTooLarge: (maxBytes: number) => new ApiError(413, 'upload_too_large', `content_length_bytes is at most ${maxBytes}`),

  // 503s for when the service, not the request, is the problem (capacity.ts). Both carry Retry-After
  // so clients back off instead of hammering; neither ever falls back to another model, language or profile.
  /** The engines' queues are full: the request was fine and may be retried unchanged. */
  capacity: (retryAfterSeconds = 5) =>
    new ApiError(503, 'capacity_unavailable', 'the service is at capacity; retry after the Retry-After interval', retryAfterHeader(retryAfterSeconds)),
  /**
   * A backend (storage, decoder, engine) is unavailable or the server is shutting down. `message` is a
   * fixed server text; never pass request content or a raw error message.
   */
  serviceUnavailable: (retryAfterSeconds = 5, message = 'the service is temporarily unavailable; retry after the Retry-After interval') =>
    new ApiError(503, 'service_unavailable', message, retryAfterHeader(retryAfterSeconds)),
} as const;
