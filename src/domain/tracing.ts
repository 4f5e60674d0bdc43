// The spans every floor names its steps with (docs/OPERATIONS.md "Traces"). They go through
// OpenTelemetry's API, which does nothing until the service registers a tracer provider (only when an
// OTLP endpoint is configured: src/service/tracing.ts), so the engine, the pipeline and the library
// pay nothing when tracing is off. Attributes are ids, sizes, counts and times: never a transcript,
// a key, a file name or a URL a client sent.
import { type Attributes, type Span, SpanStatusCode, trace } from '@opentelemetry/api';

/** The one tracer every floor's spans come from (the provider, when registered, names the process). */
export const tracer = () => trace.getTracer('svc-stt');

/** Runs `fn` inside a span named `name` (the active span's child); the span ends when `fn` settles. */
export async function traced<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      // The error's class only: a message may quote what it refused.
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name ?? 'Error' });
      throw error;
    } finally {
      span.end();
    }
  });
}
