// Every non-success answer is exactly {"error":{"code","message"}} (docs/DESIGN.md decision 4): errors
// thrown anywhere in a request, Fastify's own (body parsing, routing, validation), unknown paths
// (404) and known paths with another method (405 + Allow).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { ApiError } from './api-error.js';
import { API_REFUSALS } from './api-refusals.js';
import { mapError } from './error-mapping.js';
import { REQUEST_ID_HEADER } from './request-id.js';
import type { RouteMethodRegistry } from './route-methods.js';

export const ERROR_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Writes the envelope with the error's status and headers, whatever the route set before failing. */
export function sendApiError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).header(REQUEST_ID_HEADER, request.id).type(ERROR_CONTENT_TYPE).send(JSON.stringify(error.toBody()));
}

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { apiError, unexpected } = mapError(error);
  if (unexpected) {
    request.log.error({ err: error, route: request.routeOptions.url ?? null }, 'unexpected error');
  } else if (!(error instanceof ApiError)) {
    // The framework's code says why a request was refused; its message may quote the request.
    const code = (error as { code?: unknown } | null)?.code;
    request.log.debug({ errorCode: typeof code === 'string' ? code : null }, 'request refused');
  }
  return sendApiError(request, reply, apiError);
}

/** `frameworkErrors` option: routing failures (malformed URL encoding, over-long parameters). */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  handleError(error, request, reply);
}

export function notFoundHandler(routes: RouteMethodRegistry) {
  return function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const path = request.url.split('?', 1)[0];
    const allowed = routes.allowedMethods(path);
    if (allowed.length > 0) {
      return sendApiError(request, reply, API_REFUSALS.methodNotAllowed(allowed));
    }
    return sendApiError(request, reply, API_REFUSALS.noSuchPath());
  };
}

export function registerErrorEnvelope(app: FastifyInstance, routes: RouteMethodRegistry): void {
  const notFound = notFoundHandler(routes);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(notFound);
  // Unmatched requests are answered before their body is read: a 1 MiB JSON body (or a malformed
  // one) sent to a wrong path gets its 404/405, not a parse of content nobody will use.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (request.is404) {
      notFound(request, reply);
      return;
    }
    done();
  });
}
