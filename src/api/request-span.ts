// Each HTTP request as a span (docs/OPERATIONS.md "Traces"), named by its route's template
// ("POST /v1/jobs/:id/complete"), never its URL: ids, query strings and file names stay out. The
// request's later hooks and handler run inside the span's context, so the pipeline's and the engine's
// spans (src/domain/tracing.ts) become its children, and a job created here keeps its trace context
// (src/jobs/job-trace.ts) for the worker that runs it. Nothing is recorded while tracing is off.
import { context, type Span, SpanKind, trace } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

import { tracer } from '../domain/tracing.js';

const spans = new WeakMap<FastifyRequest, Span>();

export function startRequestSpan(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const route = request.routeOptions.url ?? 'unknown route';
  const span = tracer().startSpan(`${request.method} ${route}`, {
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': request.method, 'http.route': route, 'svc.request.id': request.id },
  });
  if (!span.isRecording()) {
    done();
    return;
  }
  spans.set(request, span);
  context.with(trace.setSpan(context.active(), span), done);
}

export function endRequestSpan(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const span = spans.get(request);
  if (span) {
    span.setAttribute('http.response.status_code', reply.statusCode);
    span.end();
    spans.delete(request);
  }
  done();
}
