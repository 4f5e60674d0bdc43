// One pool shape (workers x threads per worker) measured on a batch of calls, for `svc-stt bench`: how
// long the model takes to load, how fast one recording goes (real-time factor) and how much audio the
// whole pool gets through per second (throughput). Every worker is warmed first, outside the timing:
// a worker's first call allocates its decoding state, which a running service pays once.

import { SAMPLE_RATE } from '../domain/audio-format.js';
import { Engine } from '../engine/engine.js';
import type { PoolShape } from '../engine/pool-shape.js';
import { PeakRssSampler } from './peak-rss-sampler.js';

export interface PoolShapeRun {
  model: string;
  shape: PoolShape;
  /** The calls, all submitted at once: 16 kHz mono samples each. */
  batch: readonly Float32Array[];
  /** Tokens per segment at most: random-weight test models never stop on their own. */
  maxTokens: number;
  onLoaded?: () => void;
  onCallDone?: () => void;
}

export interface PoolShapeThroughput extends PoolShape {
  /** Engine.open: header checks, the weights, the worker threads. */
  loadMs: number;
  /** From the batch's submission to its last result. */
  wallSeconds: number;
  /** Audio in the batch. */
  audioSeconds: number;
  /** Median over the calls of a call's time in the addon over its audio's length (queueing left out). */
  realTimeFactor: number;
  audioSecondsPerWallSecond: number;
  peakRssBytes: number;
}

const WARM_UP_SAMPLES = 2 * SAMPLE_RATE;

export async function measurePoolShape(run: PoolShapeRun): Promise<PoolShapeThroughput> {
  const { workers, threadsPerWorker } = run.shape;
  // Greedy with no temperature fallback: each call decodes once, so shapes compare on equal work.
  const decoding = { language: 'en', temperatureInc: 0 };
  const rss = new PeakRssSampler();
  try {
    const loadStart = performance.now();
    const engine = await Engine.open({ model: run.model, workers, threadsPerWorker, maxQueue: run.batch.length + workers });
    const loadMs = performance.now() - loadStart;
    rss.sample();
    run.onLoaded?.();
    try {
      const warmUp = run.batch[0].subarray(0, WARM_UP_SAMPLES);
      await Promise.all(Array.from({ length: workers }, () => engine.transcribe(warmUp, { ...decoding, maxTokens: 2 })));
      const start = performance.now();
      const factors = await Promise.all(
        run.batch.map(async (pcm) => {
          const transcript = await engine.transcribe(pcm, { ...decoding, maxTokens: run.maxTokens });
          run.onCallDone?.();
          return transcript.timings.totalMs / 1000 / (pcm.length / SAMPLE_RATE);
        }),
      );
      const wallSeconds = (performance.now() - start) / 1000;
      rss.sample();
      const audioSeconds = run.batch.reduce((sum, pcm) => sum + pcm.length, 0) / SAMPLE_RATE;
      return {
        workers,
        threadsPerWorker,
        loadMs,
        wallSeconds,
        audioSeconds,
        realTimeFactor: median(factors),
        audioSecondsPerWallSecond: audioSeconds / wallSeconds,
        peakRssBytes: rss.stop(),
      };
    } finally {
      await engine.close();
    }
  } finally {
    rss.stop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
