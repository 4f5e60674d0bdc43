// Bearer-key authentication for every route not marked `config: { public: true }`, and the checks
// routes make on the authenticated key (entitlements, billing).
import type { FastifyRequest } from 'fastify';
import type { Entitlement, KeyStore } from '../store/key-store.js';
import { ApiError } from './api-error.js';
import type { FailedAuthThrottle } from './rate-limit.js';
import './fastify-augment.js';

// Real keys are far shorter; anything longer is refused without spending a hash on it.
const MAX_TOKEN_LENGTH = 512;
const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

export function unauthorized(): ApiError {
  return new ApiError(401, 'unauthorized', 'a valid API key is required: send Authorization: Bearer <API_KEY>', {
    'www-authenticate': 'Bearer',
  });
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), else null. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header.length > MAX_TOKEN_LENGTH + 16) return null;
  const match = BEARER.exec(header);
  if (!match || match[1].length > MAX_TOKEN_LENGTH) return null;
  return match[1];
}

/**
 * Secure by default: every matched route needs a key unless it opts out. Unmatched requests (404 and
 * 405 answers) need none: they reveal no more than the public OpenAPI document.
 */
export function requiresAuthentication(request: FastifyRequest): boolean {
  return !request.is404 && request.routeOptions.config.public !== true;
}

export function authenticateHook(keys: KeyStore, throttle: FailedAuthThrottle) {
  return function authenticate(request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void {
    if (!requiresAuthentication(request)) return done();
    try {
      throttle.assertAllowed(request.ip);
      const token = bearerToken(request.headers.authorization);
      const record = token === null ? null : keys.authenticate(token);
      if (record === null || record.revokedAt !== null) {
        throttle.recordFailure(request.ip);
        return done(unauthorized());
      }
      request.apiKey = record;
      done();
    } catch (error) {
      done(error as Error);
    }
  };
}

const ENTITLEMENT_NAMES: Record<Entitlement, string> = {
  patterns: 'patterns',
  language_detection: 'automatic language detection',
};

/** 403 entitlement_denied unless the request's key has the entitlement. */
export function requireEntitlement(request: FastifyRequest, entitlement: Entitlement): void {
  const key = request.apiKey;
  if (key === null) throw unauthorized();
  if (!key.entitlements.includes(entitlement)) {
    throw new ApiError(403, 'entitlement_denied', `this key is not entitled to ${ENTITLEMENT_NAMES[entitlement]}`);
  }
}

/**
 * 402 billing_blocked when the key's usage is paused. Called by routes that create new work; result
 * retrieval does not call it, so paused accounts can still collect what they already paid for.
 */
export function requireActiveBilling(request: FastifyRequest): void {
  const key = request.apiKey;
  if (key === null) throw unauthorized();
  if (key.billingState !== 'active') {
    throw new ApiError(402, 'billing_blocked', 'usage is paused for this account; result retrieval keeps working');
  }
}
