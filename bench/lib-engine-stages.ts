// Where the realtime benches' time goes, by stage, from the engine's own spans (src/engine/engine-span.ts):
// the bench registers an in-process tracer provider whose processor keeps each engine call's figures
// (nothing is exported, nothing reaches a client). Per call: the wait for a compute slot (the engine's
// scheduler), the encoder, the decoder, the context-free check decode, and the rest of its compute
// (state setup, log-mel, handing the call to and from its worker thread).
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { type ReadableSpan, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

import { percentile } from './lib-realtime-replay.js';
import { round } from './lib-report.js';

export interface EngineCall {
  /** `transcribe` or `detectSpeech` (the VAD), ... */
  task: string;
  workClass: string;
  queueMs: number;
  computeMs: number;
  encodeMs: number;
  decodeMs: number;
  checkMs: number;
}

export const STAGES = ['queue', 'encode', 'decode', 'check', 'other'] as const;
export type Stage = (typeof STAGES)[number];

/** Engine calls as they end, while the collector is registered (one per process). */
export class EngineStageCollector {
  calls: EngineCall[] = [];
  /** Calls that failed or were stopped, since the last take. */
  stopped = 0;
  private readonly provider: TracerProvider;

  constructor() {
    const processor: SpanProcessor = {
      onStart: () => {},
      onEnd: (span: ReadableSpan) => {
        const a = span.attributes;
        if (!span.name.startsWith('engine ')) return;
        // A call stopped before its end (a speculative final decode the turn outgrew) is counted apart.
        if (span.status.code === SpanStatusCode.ERROR) {
          this.stopped++;
          return;
        }
        const num = (key: string) => (typeof a[key] === 'number' ? (a[key] as number) : 0);
        this.calls.push({
          task: String(a['svc.engine.task']),
          workClass: String(a['svc.work.class']),
          queueMs: num('svc.engine.queue_wait_ms'),
          computeMs: num('svc.engine.compute_ms'),
          encodeMs: num('svc.engine.encode_ms'),
          decodeMs: num('svc.engine.decode_ms'),
          checkMs: num('svc.engine.check_ms'),
        });
      },
      forceFlush: async () => {},
      shutdown: async () => {},
    };
    this.provider = new TracerProvider({ spanProcessors: [processor] });
    if (!trace.setGlobalTracerProvider(this.provider)) throw new Error('a tracer provider is registered already: the bench cannot see the engine spans');
  }

  /** The calls since the last take, and a fresh start. */
  take(): { calls: EngineCall[]; stopped: number } {
    const taken = { calls: this.calls, stopped: this.stopped };
    this.calls = [];
    this.stopped = 0;
    return taken;
  }

  async close(): Promise<void> {
    await this.provider.shutdown();
    trace.disable();
  }
}

export interface StageFigures {
  calls: number;
  /** Per stage, p50 and p95 over the calls, in ms. */
  p50: Record<Stage, number>;
  p95: Record<Stage, number>;
}

/** Per-call stage times of the calls of one task and class. */
export function stageFigures(calls: readonly EngineCall[], task: string, workClass: string): StageFigures {
  const picked = calls.filter((c) => c.task === task && c.workClass === workClass);
  const of = (c: EngineCall): Record<Stage, number> => ({
    queue: c.queueMs,
    encode: c.encodeMs,
    decode: c.decodeMs,
    check: c.checkMs,
    other: Math.max(0, c.computeMs - c.encodeMs - c.decodeMs - c.checkMs),
  });
  const stat = (p: number) =>
    Object.fromEntries(
      STAGES.map((s) => [
        s,
        round(
          percentile(
            picked.map((c) => of(c)[s]),
            p,
          ),
          0,
        ),
      ]),
    ) as Record<Stage, number>;
  return { calls: picked.length, p50: stat(50), p95: stat(95) };
}
