// The contract's error envelope: {"error":{"code","message"}} and nothing else. Messages are fixed
// texts chosen by the server; they never echo request content.

/** Every error code the API answers with. */
export const API_ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'billing_blocked',
  'entitlement_denied',
  'not_found',
  'cancellation_not_supported',
  'method_not_allowed',
  'upload_timeout',
  'upload_too_slow',
  'idempotency_conflict',
  'idempotency_in_progress',
  'upload_not_complete',
  'upload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'capacity_unavailable',
  'service_unavailable',
  'internal_error',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): { error: { code: ApiErrorCode; message: string } } {
    return { error: { code: this.code, message: this.message } };
  }
}
