// The Fastify application frame: request ids, content-free logging, the error envelope, 404/405,
// authentication, rate limits and shutdown draining, then the route plugins in their own scopes.
// onRequest hooks run in the order added: the unread-output guard, request id, HTTP's own rules (Host,
// Expect), draining, 404/405 for unmatched paths, authentication, per-key rate limit; all of them
// before any body is read. Bodies Fastify reads itself are bounded in time like uploads. Every
// answer to an authenticated request passes the revoked-key guard on its way out.
import './fastify-augment.js';

import Fastify, { type FastifyInstance } from 'fastify';

import { KeyUseRecorder } from '../store/key-use-recorder.js';
import type { AppDependencies } from './app-dependencies.js';
import { appLoggerOptions } from './app-logger.js';
import { authenticateHook } from './authenticate.js';
import { bodyReadTimeoutHook } from './body-read-timeout.js';
import { handleClientError } from './client-error.js';
import { registerDraining } from './draining.js';
import { handleFrameworkError, registerErrorEnvelope } from './error-envelope.js';
import { httpRequirementsHook } from './http-requirements.js';
import { configureNodeHttpServer, NODE_HTTP_OPTIONS } from './node-http-server.js';
import { OpenApiCollector } from './openapi-document.js';
import { DEFAULT_FAILED_AUTH_PER_MINUTE, FailedAuthThrottle, KeyRateLimiter, keyRateLimitHook } from './rate-limit.js';
import { attachRequestId, generateRequestId } from './request-id.js';
import { ContentFreeLogController } from './request-log-controller.js';
import { endRequestSpan, startRequestSpan } from './request-span.js';
import { revokedKeyGuard } from './revoked-key-guard.js';
import { RouteMethodRegistry } from './route-methods.js';
import { openApiRoute } from './routes/openapi.js';
import { TokenBuckets } from './token-bucket.js';
import { UnreadOutputGuard } from './unread-output-guard.js';

/** JSON bodies are small (job creation); audio travels as multipart under its own limits. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

export function buildApp(deps: AppDependencies): FastifyInstance {
  const clock = deps.now ?? (() => new Date());
  const buckets = new TokenBuckets(() => clock().getTime());
  const keyRate = deps.keyRateLimiter ?? new KeyRateLimiter(buckets, deps.config.rateLimitPerMinute);

  const app = Fastify({
    ...appLoggerOptions(deps.logger, deps.config.logLevel),
    logController: new ContentFreeLogController(),
    // Client addresses are the socket's: an X-Forwarded-For header cannot dodge per-address limits.
    trustProxy: false,
    bodyLimit: JSON_BODY_LIMIT_BYTES,
    // Node's 5-minute whole-request limit would cut off large uploads on slow links; uploads are
    // policed by their own idle and minimum-rate rules instead (408 upload_timeout/upload_too_slow),
    // and headersTimeout still bounds a request that never finishes its headers.
    requestTimeout: 0,
    // Replaced by registerDraining, which answers with the error envelope.
    return503OnClosing: false,
    // Ids are always ours: a client-chosen id could collide with or impersonate another request's.
    requestIdHeader: false,
    genReqId: generateRequestId,
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
    // Node's bare answers (and silent drops) are handed to the app: see node-http-server.ts.
    http: NODE_HTTP_OPTIONS,
    // Route schemas (openapi-types.ts RouteSchema) are validated as documented: no type coercion,
    // no defaults written into the request and nothing removed from it, so a handler sees what the
    // client sent and the contract's own checks judge it. `verbose` puts the failing schema on each
    // issue, so a refusal of an unknown name can list the names the route takes (error-mapping.ts).
    ajv: { customOptions: { coerceTypes: false, useDefaults: false, removeAdditional: false, verbose: true } },
  });
  // Bodies are built by the handlers (transcripts as JSON text); response schemas document them and
  // the tests hold real answers to them. fast-json-stringify would drop any field a schema leaves
  // out, and a transcript silently losing a field is worse than JSON.stringify's speed.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  configureNodeHttpServer(app.server, app.log);

  // The request's span first, so every later hook and the handler run inside it (request-span.ts).
  app.addHook('onRequest', startRequestSpan);
  app.addHook('onResponse', endRequestSpan);
  // Before anything else looks at a request: a connection over its unread-output limits is closed.
  const unreadOutput = new UnreadOutputGuard(deps.config.connections);
  app.addHook('onRequest', unreadOutput.onRequest);
  app.addHook('onClose', (_instance, done) => {
    unreadOutput.stop();
    done();
  });

  app.decorateRequest('apiKey', null);
  app.decorateRequest('usage', null);
  // No route takes text bodies; without this parser they are refused 415 like any unknown type.
  app.removeContentTypeParser('text/plain');

  const routeMethods = new RouteMethodRegistry();
  app.addHook('onRoute', (route) => routeMethods.record(route));
  const openApi = new OpenApiCollector();
  app.addHook('onRoute', (route) => openApi.record(route));
  app.decorate('openApi', openApi);

  app.addHook('onRequest', attachRequestId);
  app.addHook('onRequest', httpRequirementsHook);
  registerDraining(app);
  registerErrorEnvelope(app, routeMethods);
  const keyUse = deps.keyUse ?? new KeyUseRecorder(deps.keys, () => clock().getTime(), app.log);
  const failedAuth = new FailedAuthThrottle(buckets, deps.failedAuthPerMinute ?? DEFAULT_FAILED_AUTH_PER_MINUTE);
  app.addHook('onRequest', authenticateHook(deps.keys, failedAuth, keyUse));
  app.addHook('onRequest', keyRateLimitHook(keyRate));
  app.addHook('preParsing', bodyReadTimeoutHook(deps.config.upload));
  app.addHook('onSend', revokedKeyGuard(deps.keys));
  const requestMetrics = deps.requestMetrics;
  if (requestMetrics) {
    app.addHook('onResponse', (request, reply, done) => {
      requestMetrics.observeRequest(request.is404 ? null : (request.routeOptions.url ?? null), request.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }

  app.register(async (scope) => openApiRoute(scope, deps, openApi));
  for (const plugin of deps.routes ?? []) {
    app.register(async (scope) => plugin(scope, deps));
  }
  return app;
}
