// Why a realtime session ends early, in the terms a client branches on: the contract's error code
// (sent in an `error` event), then a WebSocket close code and a short reason token. The realtime
// listener is its own edge: these are its errors, mapped to close codes here and nowhere else.
// Messages are fixed text: nothing a client sent is ever echoed.
import { CredentialRefused, UnusableKnownSpeaker } from '../application/application-errors.js';
import { BillingBlockedError } from '../billing/billing-errors.js';
import { EntitlementMissing, PipelineError } from '../pipeline/pipeline-errors.js';
import { isStoreUnavailable } from '../store/store-unavailable-error.js';
import { CLOSE_BACKPRESSURE, CLOSE_TOO_BIG } from './transport/transport.js';

/** WebSocket close codes of the realtime protocol (REALTIME.md). */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  policy: 1008,
  internal: 1011,
  tryAgainLater: 1013,
  invalidRequest: 4400,
  unauthorized: 4401,
  billingBlocked: 4402,
  forbidden: 4403,
  timeout: 4408,
  tooFast: 4429,
  backpressure: CLOSE_BACKPRESSURE,
  tooBig: CLOSE_TOO_BIG,
} as const;

export type RealtimeErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'entitlement_denied'
  | 'billing_blocked'
  | 'rate_limited'
  | 'capacity_unavailable'
  | 'service_unavailable'
  | 'internal_error';

export class RealtimeRefusal extends Error {
  constructor(
    readonly code: RealtimeErrorCode,
    readonly closeCode: number,
    /** The close frame's reason: an upper-case token (at most 123 bytes). */
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'RealtimeRefusal';
  }
}

export const invalidStart = (message: string) => new RealtimeRefusal('invalid_request', CLOSE.invalidRequest, 'INVALID_START', message);

/** A start that found the database down (keys, seats): nothing was taken; the client retries later. */
export const storeUnavailable = () =>
  new RealtimeRefusal('service_unavailable', CLOSE.tryAgainLater, 'SERVICE_UNAVAILABLE', 'the service cannot check keys or seats now; retry later');

export const silenceTimeout = (seconds: number) => new RealtimeRefusal('invalid_request', CLOSE.timeout, 'SILENCE_TIMEOUT', `no speech for ${seconds} s`);

export const unauthorized = () =>
  new RealtimeRefusal(
    'unauthorized',
    CLOSE.unauthorized,
    'UNAUTHORIZED',
    'a valid API key, or an unused and unexpired client secret of one, is required in the start message',
  );

export function sessionTooLong(maxMs: number): RealtimeRefusal {
  const length = maxMs >= 60_000 ? `${Math.round(maxMs / 60_000)} minutes` : `${Math.round(maxMs / 1000)} seconds`;
  return new RealtimeRefusal('invalid_request', CLOSE.timeout, 'SESSION_TOO_LONG', `a session takes at most ${length} of audio on this plan: start a new one`);
}

export const billingRefusal = (error: BillingBlockedError) => new RealtimeRefusal('billing_blocked', CLOSE.billingBlocked, 'BILLING_BLOCKED', error.message);

/** Why a start was not admitted, as the session answers it (the start's parser and the admission use case's errors). */
export function startRefusal(error: unknown): RealtimeRefusal {
  if (error instanceof RealtimeRefusal) return error;
  if (error instanceof CredentialRefused) return unauthorized();
  if (error instanceof EntitlementMissing) return new RealtimeRefusal('entitlement_denied', CLOSE.forbidden, 'ENTITLEMENT_DENIED', error.message);
  if (error instanceof BillingBlockedError) return billingRefusal(error);
  if (error instanceof UnusableKnownSpeaker || error instanceof PipelineError) return invalidStart(error.message);
  if (isStoreUnavailable(error)) return storeUnavailable();
  return new RealtimeRefusal('internal_error', CLOSE.internal, 'INTERNAL_ERROR', 'the session could not start');
}
