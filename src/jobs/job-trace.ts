// A job's place in a trace (docs/OPERATIONS.md "Traces"): the request that creates a job records its
// trace context (a W3C traceparent) with it, and every claim of the job, on whichever worker process
// leases it, is a `job chunk` span continuing that trace, so one trace runs from the upload through
// each chunk's decoding and engine windows to the result. Nothing is kept while tracing is off.
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';

import { traced } from '../domain/tracing.js';
import type { JobRecord } from '../store/job-store.js';

/** The active trace context as a traceparent, to keep with a job; null when nothing is traced. */
export function activeTraceParent(): string | null {
  if (!trace.getActiveSpan()?.isRecording()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** Runs one claim of `job` as a span of the trace its creation started (a trace of its own when none was kept). */
export function inJobTrace<T>(job: Pick<JobRecord, 'id' | 'traceParent' | 'resultRevision'>, step: string, fn: () => Promise<T>): Promise<T> {
  const parent = job.traceParent === null ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, { traceparent: job.traceParent });
  return context.with(parent, () => traced(`job ${step}`, { 'svc.job.id': job.id, 'svc.job.chunk': job.resultRevision }, fn));
}
