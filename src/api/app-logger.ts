// The logger the app runs with. Request logs identify a request (id, method, route pattern, status,
// duration) and never carry content: no bodies, no query strings or concrete paths (which can hold
// job ids or webhook destinations), and no credentials, which are also redacted should any code log
// headers. This holds whether the caller passes pino options or a ready logger.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { type DestinationStream, pino } from 'pino';

import type { AppLogger, PinoLoggerOptions } from './app-dependencies.js';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'request.headers.authorization',
  'request.headers.cookie',
  'headers.authorization',
  'headers.cookie',
];
const CENSOR = '[redacted]';

/** Serializers for the objects Fastify itself logs; they replace Fastify's, which include the URL. */
export const contentFreeSerializers = {
  req: (request: FastifyRequest) => ({ method: request.method, route: request.routeOptions?.url ?? null }),
  res: (reply: Pick<FastifyReply, 'statusCode'>) => ({ statusCode: reply.statusCode }),
};

type LoggerOptions = Pick<FastifyServerOptions, 'logger' | 'loggerInstance'>;

export function isLoggerInstance(logger: unknown): logger is FastifyBaseLogger {
  if (typeof logger !== 'object' || logger === null) return false;
  const methods = ['info', 'error', 'debug', 'fatal', 'warn', 'trace', 'child'] as const;
  return methods.every((name) => typeof (logger as Record<string, unknown>)[name] === 'function');
}

export function appLoggerOptions(logger: AppLogger | undefined, defaultLevel: string): LoggerOptions {
  if (logger === false) return { logger: false };
  if (logger === undefined || logger === true) return { logger: withSafety({ level: defaultLevel }) };
  if (isLoggerInstance(logger)) {
    return { loggerInstance: logger.child({}, { redact: { paths: REDACTED_PATHS, censor: CENSOR }, serializers: contentFreeSerializers }) };
  }
  return { logger: withSafety({ level: defaultLevel, ...logger }) };
}

/**
 * The process's one logger, made before anything that writes to it (the service's stages, then the
 * app, which logs through a child of it): the same safety as the app's own, from the same settings.
 */
export function createAppLogger(logger: AppLogger | undefined, defaultLevel: string): FastifyBaseLogger {
  if (isLoggerInstance(logger)) return logger;
  if (logger === false) return pino({ enabled: false });
  // Fastify's own logger option takes a `stream` beside pino's options; pino takes it apart.
  const { stream, ...options } = (logger === undefined || logger === true ? {} : logger) as PinoLoggerOptions & { stream?: DestinationStream };
  const safe = withSafety({ level: defaultLevel, ...options });
  return (stream ? pino(safe, stream) : pino(safe)) as FastifyBaseLogger;
}

function withSafety(options: PinoLoggerOptions): PinoLoggerOptions {
  const given = options.redact;
  const paths = Array.isArray(given) ? given : (given?.paths ?? []);
  const redact = { ...(Array.isArray(given) ? {} : given), paths: [...new Set([...paths, ...REDACTED_PATHS])] };
  if (!('censor' in redact) && !('remove' in redact)) Object.assign(redact, { censor: CENSOR });
  return { ...options, redact, serializers: { ...options.serializers, ...contentFreeSerializers } } as PinoLoggerOptions;
}
