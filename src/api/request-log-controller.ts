// Fastify's per-request log lines, rewritten so none of them can carry content. Fastify's defaults log
// the URL with its query string ("incoming request", "Route GET:/... not found") and error messages
// that may quote the body; these log the route pattern, status and duration, and error codes only.
// One line per request, at completion; the request id comes from the request's child logger. An
// authenticated request's line names its key and tenant by id (the access audit trail, issue 13), and
// a transcription's its audio length and billing outcome (src/application/request-usage.ts).
//
// A response whose connection closes before it is complete (a client hanging up on a stream, or
// before its answer) never emits 'finish', so Fastify never calls requestCompleted for it: its line
// is written on the response's 'close', with the status sent (null when none was) and
// `clientClosedEarly`. A transcription's line waits for its use case to end, which after a hang-up is
// later than the close: only then is its billing outcome known.
import './fastify-augment.js';

import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';

type RequestLine = Record<string, unknown>;

function routeOf(request: FastifyRequest): string | null {
  return request.routeOptions?.url ?? null;
}

/** Who made the request, when it was authenticated: public ids only, never the key or its hash. */
function callerOf(request: FastifyRequest): { keyId: string; tenantId: string } | null {
  const key = request.apiKey ?? null;
  return key === null ? null : { keyId: key.id, tenantId: key.tenant };
}

/** A reply taken over by a hook (a connection the unread-output guard dropped): not answered, no line. */
function hijacked(reply: FastifyReply): boolean {
  return reply.sent && !reply.raw.writableEnded;
}

function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

export class ContentFreeLogController extends LogController {
  /** Requests whose line is written, or waits for their use case: never a second one. */
  private readonly lined = new WeakSet<FastifyRequest>();

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    // No line: the completion line says everything this would; halving the lines halves the log volume.
    // Called for every request Fastify answers, before any hook: the one place to watch for its close.
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished || hijacked(reply)) return;
      this.closedEarly(request, reply);
    });
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, route: routeOf(request), statusCode: reply.statusCode, responseTime: reply.elapsedTime, ...callerOf(request) };
    if (error) this.requestLine(request, reply, { ...line, errorCode: codeOf(error) }, 'warn', 'request ended with an error');
    else this.requestLine(request, reply, line, 'info', 'request completed');
  }

  /** The line of a request whose response closed before it was complete: the status sent, if any. */
  private closedEarly(request: FastifyRequest, reply: FastifyReply): void {
    const statusCode = reply.raw.headersSent ? reply.statusCode : null;
    const line = {
      method: request.method,
      route: routeOf(request),
      statusCode,
      clientClosedEarly: true,
      responseTime: reply.elapsedTime,
      ...callerOf(request),
    };
    this.requestLine(request, reply, line, 'info', 'request completed');
  }

  /** Writes the request's one line, with its usage once its use case has ended. */
  private requestLine(request: FastifyRequest, reply: FastifyReply, line: RequestLine, level: 'info' | 'warn', msg: string): void {
    if (this.lined.has(request)) return;
    this.lined.add(request);
    if (this.isLogDisabled(request)) return;
    const usage = request.usage;
    const write = () => reply.log[level]({ ...line, ...usage?.fields() }, msg);
    if (usage && !usage.hasEnded) void usage.ended.then(write);
    else write();
  }

  override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    // Only reached if a scope replaces the frame's error handler with Fastify's default.
    if (this.isLogDisabled(request)) return;
    if (reply.statusCode >= 500) reply.log.error({ err: error, route: routeOf(request) }, 'unexpected error');
    else reply.log.info({ errorCode: codeOf(error), route: routeOf(request) }, 'request refused');
  }

  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    // A stream the client closed early: the request's line says so (written on the response's close).
    if (codeOf(error) === 'ERR_STREAM_PREMATURE_CLOSE') return this.closedEarly(request, reply);
    if (this.isLogDisabled(request)) return;
    reply.log.warn({ errorCode: codeOf(error), route: routeOf(request) }, 'response stream failed after headers were sent');
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
