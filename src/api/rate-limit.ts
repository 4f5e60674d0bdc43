// Request-rate limits. Authenticated requests count against their key (the key's own rate, else the
// server default); failed authentications count against the client address, so guessing keys or
// hammering with a revoked one costs the sender, not the key store.
import type { FastifyRequest } from 'fastify';
import type { ServiceConfig } from '../config/service-config.js';
import type { ApiError } from './api-error.js';
import { API_REFUSALS } from './api-refusals.js';
import type { TokenBuckets } from './token-bucket.js';
import './fastify-augment.js';

export const DEFAULT_FAILED_AUTH_PER_MINUTE = 30;

export function rateLimited(retryAfterSeconds: number): ApiError {
  return API_REFUSALS.rateLimited(retryAfterSeconds);
}

/** Per-key limit; runs after authentication, so only requests with a key are counted. */
export function keyRateLimitHook(buckets: TokenBuckets, config: Pick<ServiceConfig, 'rateLimitPerMinute'>) {
  return function limitKeyRate(request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void {
    const key = request.apiKey;
    if (key === null) return done();
    const decision = buckets.take(`key:${key.id}`, key.rateLimitPerMinute ?? config.rateLimitPerMinute);
    done(decision.allowed ? undefined : rateLimited(decision.retryAfterSeconds));
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
