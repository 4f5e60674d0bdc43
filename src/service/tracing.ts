// Traces (docs/OPERATIONS.md "Traces"): OpenTelemetry spans exported over OTLP/HTTP, configured by the
// standard OTEL_* variables and off unless an endpoint is named (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). The exporter reads its own variables (headers, timeout,
// compression); this decides only whether to trace and names the process: service.name
// (OTEL_SERVICE_NAME, default svc-stt), its role and instance id. One process registers one provider:
// a second service started in the same process (tests) leaves the first one's in place.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

export interface TracingProcess {
  role: string;
  instanceId: string;
}

/** Whether the environment asks for traces: an OTLP endpoint named, the SDK not disabled, the exporter not `none`. */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

let registered = false;

/** Starts exporting when asked; returns what flushes and stops it (a no-op when tracing is off). */
export function startTracing(process: TracingProcess, env: NodeJS.ProcessEnv): () => Promise<void> {
  if (!tracingRequested(env) || registered) return async () => {};
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME?.trim() || 'svc-stt',
      'service.instance.id': process.instanceId,
      'svc.role': process.role,
    }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  registered = true;
  let stopped: Promise<void> | null = null;
  return () => (stopped ??= stop(provider));
}

async function stop(provider: TracerProvider): Promise<void> {
  await provider.shutdown().catch(() => {});
  trace.disable();
  propagation.disable();
  context.disable();
  registered = false;
}
