// Request-rate limits. Authenticated requests count against their key (the key's own rate, else the
// server default); failed authentications count against the client address, so guessing keys or
// hammering with a revoked one costs the sender, not the key store. A key's requests are counted by
// one KeyRateLimiter per process, which the console's playground shares: its runs as a key are that
// key's requests too.
import './fastify-augment.js';

import type { FastifyRequest } from 'fastify';

import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { ApiError } from './api-error.js';
import { API_REFUSALS } from './api-refusals.js';
import type { TokenBuckets } from './token-bucket.js';

export const DEFAULT_FAILED_AUTH_PER_MINUTE = 30;

export function rateLimited(retryAfterSeconds: number): ApiError {
  return API_REFUSALS.rateLimited(retryAfterSeconds);
}

/** Requests per minute per key: the key's own rate, else the server default (SVC_RATE_LIMIT_PER_MINUTE). */
export class KeyRateLimiter {
  constructor(
    private readonly buckets: TokenBuckets,
    private readonly defaultPerMinute: number,
  ) {}

  /** Counts one request of the key's; throws the API's 429 (rate_limited, Retry-After) when its bucket is empty. */
  take(key: Pick<ApiKeyRecord, 'id' | 'rateLimitPerMinute'>): void {
    const decision = this.buckets.take(`key:${key.id}`, key.rateLimitPerMinute ?? this.defaultPerMinute);
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
  }
}

/** Per-key limit; runs after authentication, so only requests with a key are counted. */
export function keyRateLimitHook(limiter: KeyRateLimiter) {
  return function limitKeyRate(request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void {
    const key = request.apiKey;
    if (key === null) return done();
    try {
      limiter.take(key);
    } catch (error) {
      return done(error as Error);
    }
    done();
  };
}

/** Failed authentications per client address (the socket's address: proxies are not trusted). */
export class FailedAuthThrottle {
  constructor(
    private readonly buckets: TokenBuckets,
    private readonly perMinute: number = DEFAULT_FAILED_AUTH_PER_MINUTE,
  ) {}

  /** Throws 429 while the address has no failures left; checked before the key is even looked up. */
  assertAllowed(address: string): void {
    const decision = this.buckets.peek(`ip:${address}`, this.perMinute);
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
  }

  recordFailure(address: string): void {
    this.buckets.take(`ip:${address}`, this.perMinute);
  }
}
