// One engine call as a span (docs/OPERATIONS.md "Traces"): named by what it computes (`engine
// transcribe` is one window, `engine detectSpeech` the VAD, `engine diarize`), a child of whatever
// request or job step made it, with the time it waited for a compute slot apart from the time it
// computed, the threads it ran on and its class of work, and for a transcription the addon's own split
// of its compute (encoder, decoder, the context-free check, time held for urgent work): where a
// realtime turn's latency goes (bench/realtime.ts reads these). Nothing is recorded while tracing is off.
import { SpanStatusCode } from '@opentelemetry/api';

import { tracer } from '../domain/tracing.js';
import type { EngineWork } from '../domain/work-classes.js';
import type { NativeTimings } from './native-addon.js';

export interface EngineSpan {
  /** The call left the queue for a worker, with `share` workers' threads. */
  dispatched(share: number): void;
  /** The call ended; `error`: how it failed, or null; `timings`: the addon's split of a transcription. */
  end(error: unknown, timings?: TranscribeTimings): void;
}

/** The parts of a transcription's compute the addon times (NativeTimings). */
export type TranscribeTimings = Pick<NativeTimings, 'encodeMs' | 'decodeMs' | 'checkMs' | 'heldMs'>;

export function startEngineSpan(kind: string, work: EngineWork | undefined): EngineSpan {
  const span = tracer().startSpan(`engine ${kind}`, {
    attributes: { 'svc.engine.task': kind, 'svc.work.class': work?.workClass ?? 'interactive' },
  });
  const submitted = performance.now();
  let dispatched: number | null = null;
  return {
    dispatched(share) {
      dispatched = performance.now();
      span.setAttribute('svc.engine.queue_wait_ms', Math.round(dispatched - submitted));
      span.setAttribute('svc.engine.workers', share);
    },
    end(error, timings) {
      if (dispatched !== null) span.setAttribute('svc.engine.compute_ms', Math.round(performance.now() - dispatched));
      if (timings) {
        span.setAttributes({
          'svc.engine.encode_ms': Math.round(timings.encodeMs),
          'svc.engine.decode_ms': Math.round(timings.decodeMs),
          'svc.engine.check_ms': Math.round(timings.checkMs),
          'svc.engine.held_ms': Math.round(timings.heldMs),
        });
      }
      if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name ?? 'Error' });
      span.end();
    },
  };
}
