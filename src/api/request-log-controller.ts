// Fastify's per-request log lines, rewritten so none of them can carry content. Fastify's defaults log
// the URL with its query string ("incoming request", "Route GET:/... not found") and error messages
// that may quote the body; these log the route pattern, status and duration, and error codes only.
// One line per request, at completion; the request id comes from the request's child logger. An
// authenticated request's line names its key and tenant by id (the access audit trail, issue 13).
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import './fastify-augment.js';

function routeOf(request: FastifyRequest): string | null {
  return request.routeOptions?.url ?? null;
}

/** Who made the request, when it was authenticated: public ids only, never the key or its hash. */
function callerOf(request: FastifyRequest): { keyId: string; tenantId: string } | null {
  const key = request.apiKey ?? null;
  return key === null ? null : { keyId: key.id, tenantId: key.tenant };
}

function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

export class ContentFreeLogController extends LogController {
  override incomingRequest(): void {
    // The completion line says everything this would; halving the lines halves the log volume.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const line = { method: request.method, route: routeOf(request), statusCode: reply.statusCode, responseTime: reply.elapsedTime, ...callerOf(request) };
    if (error) reply.log.warn({ ...line, errorCode: codeOf(error) }, 'request ended with an error');
    else reply.log.info(line, 'request completed');
  }

  override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    // Only reached if a scope replaces the frame's error handler with Fastify's default.
    if (this.isLogDisabled(request)) return;
    if (reply.statusCode >= 500) reply.log.error({ err: error, route: routeOf(request) }, 'unexpected error');
    else reply.log.info({ errorCode: codeOf(error), route: routeOf(request) }, 'request refused');
  }

  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (codeOf(error) === 'ERR_STREAM_PREMATURE_CLOSE') reply.log.info({ route: routeOf(request) }, 'response stream closed early');
    else reply.log.warn({ errorCode: codeOf(error), route: routeOf(request) }, 'response stream failed after headers were sent');
  }

  override routeNotFound(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ method: request.method }, 'no route matched');
  }

  override writeHeadError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    reply.log.warn({ errorCode: codeOf(error), route: routeOf(request) }, 'writing the response head failed');
  }

  override serializerError(error: Error, request: FastifyRequest, reply: FastifyReply, metadata: { statusCode: number }): void {
    if (this.isLogDisabled(request)) return;
    reply.log.error({ err: error, statusCode: metadata.statusCode, route: routeOf(request) }, 'response serialization failed');
  }

  override serviceUnavailable(logger: FastifyBaseLogger): void {
    logger.info({ statusCode: 503 }, 'refused a request while closing');
  }
}
