// What the application frame needs from the outside, and the seam through which routes join it.
// Routes that need more (engines, stores, queues) close over their own dependencies when they are
// created, so adding a route never changes this interface.
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';

import type { ServiceConfig } from '../config/service-config.js';
import type { KeyStore } from '../store/key-store.js';
import type { KeyUseRecorder } from '../store/key-use-recorder.js';
import type { KeyRateLimiter } from './rate-limit.js';

/** Pino options (level, stream, ...), a ready logger instance, or true/false for on/off. */
export type AppLogger = boolean | FastifyBaseLogger | PinoLoggerOptions;

/** Fastify's `logger` option: pino's options (pino itself is Fastify's dependency, not ours). */
export type PinoLoggerOptions = Exclude<FastifyServerOptions['logger'], boolean | undefined>;

/**
 * A group of routes. Each is registered in its own encapsulated context after the frame (error
 * envelope, request ids, authentication, rate limits), so everything it adds (content-type parsers,
 * decorators, hooks) stays local to it while the frame's hooks and handlers still apply.
 * A route is public (no bearer key, no per-key rate limit) only with `config: { public: true }`.
 */
export type RoutePlugin = (app: FastifyInstance, deps: AppDependencies) => Promise<void> | void;

export interface AppDependencies {
  config: ServiceConfig;
  keys: KeyStore;
  /** Default: pino at `config.logLevel`. Whatever is given, request logs never carry content. */
  logger?: AppLogger;
  /** The clock behind rate limits; tests inject one they can advance. */
  now?: () => Date;
  /**
   * Counts each key's requests. Given when requests run as a key elsewhere too (the console's
   * playground, start-service.ts), so they all take from one bucket per key; else the app's own, on `now`.
   */
  keyRateLimiter?: KeyRateLimiter;
  /**
   * Notes each authenticated key's use (its "last used"). Given when keys are used elsewhere too (realtime
   * starts, start-service.ts), so one memo spares the store repeated writes; else the app's own, on `now`.
   */
  keyUse?: KeyUseRecorder;
  /** Registered in order after the frame, e.g. the transcription and jobs routes. */
  routes?: RoutePlugin[];
  /**
   * Failed authentications allowed per client address per minute before that address gets 429s
   * (default 30): guessing keys must not be free.
   */
  failedAuthPerMinute?: number;
  /** Told about every answered request (the service's Prometheus metrics). */
  requestMetrics?: RequestMetrics;
}

export interface RequestMetrics {
  /** `route` is the matched route's template (never a concrete path), or null when none matched. */
  observeRequest(route: string | null, method: string, status: number, seconds: number): void;
}
