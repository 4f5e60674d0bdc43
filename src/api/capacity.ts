// 503s for when the service, not the request, is the problem. Both carry Retry-After so clients
// back off instead of hammering; neither ever falls back to another model, language or profile.
import type { ApiError } from './api-error.js';
import { API_REFUSALS } from './api-refusals.js';

/** The engines' queues are full: the request was fine and may be retried unchanged. */
export function capacityUnavailable(retryAfterSeconds = 5): ApiError {
  return API_REFUSALS.capacity(retryAfterSeconds);
}

/**
 * A backend (storage, decoder, engine) is unavailable or the server is shutting down. `message` is a
 * fixed server text; never pass request content or a raw error message.
 */
export function serviceUnavailable(retryAfterSeconds = 5, message = 'the service is temporarily unavailable; retry after the Retry-After interval'): ApiError {
  return API_REFUSALS.serviceUnavailable(retryAfterSeconds, message);
}
