// Bearer-key authentication for every route not marked `config: { public: true }`, and the check
// routes make on the authenticated key's entitlements. Keys are read from the store on every request,
// never cached: `svc-stt keys revoke` in another process writes the same SQLite file, and the next
// request already sees it. An accepted key's use is noted (its "last used"), never waited for.
import './fastify-augment.js';

import type { FastifyRequest } from 'fastify';

import type { Entitlement } from '../domain/api-keys.js';
import type { KeyStore } from '../store/key-store.js';
import type { KeyUseRecorder } from '../store/key-use-recorder.js';
import type { ApiError } from './api-error.js';
import { API_REFUSALS } from './api-refusals.js';
import type { FailedAuthThrottle } from './rate-limit.js';
import { headerCount } from './raw-headers.js';

// Real keys are far shorter; anything longer is refused without spending a hash on it.
const MAX_TOKEN_LENGTH = 512;
const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

export function unauthorized(): ApiError {
  return API_REFUSALS.missingKey();
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

export function authenticateHook(keys: KeyStore, throttle: FailedAuthThrottle, keyUse: Pick<KeyUseRecorder, 'record'>) {
  const verify = async (request: FastifyRequest): Promise<void> => {
    // Node would keep the first and drop the rest: which credential a request carries must never
    // depend on which copy a proxy or parser happens to prefer.
    if (headerCount(request.raw.rawHeaders, 'authorization') > 1) {
      throw API_REFUSALS.repeatedAuthorization();
    }
    throttle.assertAllowed(request.ip);
    const token = bearerToken(request.headers.authorization);
    const record = token === null ? null : await keys.authenticate(token);
    if (record === null || record.revokedAt !== null) {
      throttle.recordFailure(request.ip);
      throw unauthorized();
    }
    request.apiKey = record;
    keyUse.record(record);
  };
  // Callback style so that a public request goes on synchronously: pipelined requests parsed from
  // one chunk then reach the unread-output guard one by one, after the answers before them were
  // written, rather than all at once after a promise tick.
  return function authenticate(request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void {
    if (!requiresAuthentication(request)) return done();
    verify(request).then(() => done(), done);
  };
}

// The service's wiring names it here; the rule is the application's (src/application/require-active-key.ts).

const ENTITLEMENT_NAMES: Record<Entitlement, string> = {
  patterns: 'patterns',
  language_detection: 'automatic language detection',
};

/** 403 entitlement_denied unless the request's key has the entitlement. */
export function requireEntitlement(request: FastifyRequest, entitlement: Entitlement): void {
  const key = request.apiKey;
  if (key === null) throw unauthorized();
  if (!key.entitlements.includes(entitlement)) {
    throw API_REFUSALS.entitlementDenied(ENTITLEMENT_NAMES[entitlement]);
  }
}
