// The response pieces routes share in their schemas: the headers every answer or some answers carry,
// and the error responses (one per status, all in the error envelope). A route's schema lists the
// error statuses it can answer with; the generated document names each shared error response once
// (components/responses) and refers to it.
import { ref } from './openapi-schema-builders.js';
import type { Header, Response } from './openapi-types.js';

export const RESPONSE_HEADERS = {
  requestId: { description: 'The request id; give it to support.', required: true, schema: { type: 'string', pattern: '^req_[0-9A-Za-z]+$' } },
  retryAfter: { description: 'Whole seconds to wait before retrying (at least 1).', required: true, schema: { type: 'integer', minimum: 1 } },
  location: { description: 'The job to poll.', required: true, schema: { type: 'string', format: 'uri' } },
  wwwAuthenticate: { required: true, schema: { type: 'string', const: 'Bearer' } },
  allow: { description: 'The methods this path accepts.', required: true, schema: { type: 'string' } },
  deprecation: { description: 'Present when a deprecated `profile` (standard, turbo) was requested.', schema: { type: 'string', const: 'true' } },
  warning: { description: `Present with Deprecation, e.g. 299 - "profile 'turbo' is deprecated; use 'default'".`, schema: { type: 'string' } },
} as const satisfies Record<string, Header>;

/** The headers of every answer: `x-request-id`, plus any others given. */
export function answerHeaders(extra: Record<string, Header> = {}): Record<string, Header> {
  return { 'x-request-id': RESPONSE_HEADERS.requestId, ...extra };
}

/** The headers of answers that may carry a deprecated profile's notice. */
export const PROFILE_NOTICE_HEADERS: Record<string, Header> = { Deprecation: RESPONSE_HEADERS.deprecation, Warning: RESPONSE_HEADERS.warning };

function errorResponse(description: string, extra: Record<string, Header> = {}): Response {
  return { description, headers: answerHeaders(extra), content: { 'application/json': { schema: ref('Error') } } };
}

/** Every error response, by the name the document gives it. */
export const ERROR_RESPONSES = {
  BadRequest: errorResponse('`invalid_request`: malformed request, unsupported model option or mismatched media type.'),
  Unauthorized: errorResponse('`unauthorized`: missing or invalid API key.', { 'WWW-Authenticate': RESPONSE_HEADERS.wwwAuthenticate }),
  BillingBlocked: errorResponse('`billing_blocked`: usage is paused. Result retrieval keeps working.'),
  EntitlementDenied: errorResponse('`entitlement_denied`: the key is not entitled to a requested feature (patterns, automatic language detection).'),
  NotFound: errorResponse('`not_found`: unknown job, or a job owned by another key.'),
  MethodNotAllowed: errorResponse('`method_not_allowed`: the path exists but not with this method.', { Allow: RESPONSE_HEADERS.allow }),
  CancellationNotSupported: errorResponse('`cancellation_not_supported`: jobs cannot be cancelled in v1.'),
  UploadTimeout: errorResponse('`upload_timeout` or `upload_too_slow`: retry as a new request.'),
  Conflict: errorResponse('`idempotency_conflict` or `idempotency_in_progress`; on the complete call, `upload_not_complete`.'),
  UploadTooLarge: errorResponse("`upload_too_large`: the file or its duration exceeds the route's limit."),
  UnsupportedMediaType: errorResponse('`unsupported_media_type`: the request body type or the audio container is not supported.'),
  Unprocessable: errorResponse('`invalid_request`: unsupported language or detection, bad vocabulary, patterns, hints or feature combination.'),
  RateLimited: errorResponse('`rate_limited`: rate, queue or capacity limit. Honour Retry-After with jitter.', { 'Retry-After': RESPONSE_HEADERS.retryAfter }),
  InternalError: errorResponse('`internal_error`: an unexpected server fault. Retry with backoff; give x-request-id to support.'),
  ServiceUnavailable: errorResponse('`capacity_unavailable` or `service_unavailable`. Honour Retry-After.', { 'Retry-After': RESPONSE_HEADERS.retryAfter }),
} satisfies Record<string, Response>;

const ERROR_RESPONSE_BY_STATUS = {
  400: ERROR_RESPONSES.BadRequest,
  401: ERROR_RESPONSES.Unauthorized,
  402: ERROR_RESPONSES.BillingBlocked,
  403: ERROR_RESPONSES.EntitlementDenied,
  404: ERROR_RESPONSES.NotFound,
  405: ERROR_RESPONSES.MethodNotAllowed,
  408: ERROR_RESPONSES.UploadTimeout,
  409: ERROR_RESPONSES.Conflict,
  413: ERROR_RESPONSES.UploadTooLarge,
  415: ERROR_RESPONSES.UnsupportedMediaType,
  422: ERROR_RESPONSES.Unprocessable,
  429: ERROR_RESPONSES.RateLimited,
  500: ERROR_RESPONSES.InternalError,
  503: ERROR_RESPONSES.ServiceUnavailable,
} satisfies Record<number, Response>;

export type ErrorStatus = keyof typeof ERROR_RESPONSE_BY_STATUS;

/** Statuses the frame can answer any route with (authentication, rate limits, faults, draining). */
const FRAME_STATUSES: ErrorStatus[] = [401, 429, 500, 503];

/** A route's error responses by status: those given plus the frame's; `public` routes have no 401. */
export function errorResponses(statuses: ErrorStatus[], options: { public?: boolean } = {}): Record<string, Response> {
  const frame = options.public ? FRAME_STATUSES.filter((s) => s !== 401) : FRAME_STATUSES;
  const all = [...new Set([...statuses, ...frame])].sort((a, b) => a - b);
  return Object.fromEntries(all.map((status) => [String(status), ERROR_RESPONSE_BY_STATUS[status]]));
}
