// The engine: one model per process, a Piscina pool of worker threads calling the addon, a bounded
// queue that rejects fast when full. Used by the service, the CLI, the benchmarks and library users.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { readModelHeader, type ModelHeader } from '../models/model-header.js';
import { EngineError, abortError } from './engine-errors.js';
import {
  loadNativeAddon,
  type NativeLanguageResult,
  type NativeLoadOptions,
  type NativeModel,
  type NativeModelInfo,
  type NativeTranscribeOptions,
  type NativeTranscribeResult,
} from './native-addon.js';
import type { DetectLanguageTask, PoolWorkerData, TranscribeTask } from './pool-task.js';
import { defaultPoolShape } from './pool-shape.js';
import { SAMPLE_RATE, shapeTranscript, type Transcript } from './transcript.js';

export interface EngineOpenOptions {
  /** Path of a whisper.cpp ggml model file. */
  model: string;
  /** Worker threads, each running one call at a time. Default: see pool-shape.ts. */
  workers?: number;
  /** Compute threads per call. Default: see pool-shape.ts. */
  threadsPerWorker?: number;
  /** Calls allowed to wait for a worker; beyond it transcribe() rejects with code 'queue_full'. */
  maxQueue?: number;
  load?: NativeLoadOptions;
}

export type TranscribeOptions = Omit<NativeTranscribeOptions, 'threads'>;

export interface CallOptions {
  signal?: AbortSignal;
  /** Percent 0..100, non-decreasing, ending at 100 on success. */
  onProgress?: (percent: number) => void;
}

export interface LanguageDetection {
  language: string;
  probabilities: Record<string, number>;
  timings: { totalMs: number };
}

export interface EngineStats {
  workers: number;
  threadsPerWorker: number;
  /** Calls running on a worker. */
  running: number;
  /** Calls waiting for a worker. */
  queued: number;
  maxQueue: number;
}

const workerFile = new URL(import.meta.url.endsWith('.ts') ? './pool-worker.ts' : './pool-worker.js', import.meta.url);

export class Engine {
  private pending = 0;
  private closed = false;

  private constructor(
    private readonly pool: Piscina,
    private readonly anchor: NativeModel,
    readonly header: ModelHeader,
    readonly workers: number,
    readonly threadsPerWorker: number,
    readonly maxQueue: number,
  ) {}

  static async open(options: EngineOpenOptions): Promise<Engine> {
    const modelPath = resolve(options.model);
    // whisper.cpp may abort() on a malformed file, so a file must pass our own checks first.
    const header = await readModelHeader(modelPath);
    const shape = defaultPoolShape(availableParallelism());
    const workers = options.workers ?? shape.workers;
    const threadsPerWorker = options.threadsPerWorker ?? shape.threadsPerWorker;
    const maxQueue = options.maxQueue ?? Math.max(8, workers * 4);
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError('workers must be a positive integer');
    if (!Number.isInteger(threadsPerWorker) || threadsPerWorker < 1) throw new RangeError('threadsPerWorker must be a positive integer');
    if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new RangeError('maxQueue must be a non-negative integer');
    const loadOptions: NativeLoadOptions = { ...options.load };
    // The main thread's reference keeps the weights resident for the engine's life, and makes a
    // failed load an error of open() rather than of the first call.
    let anchor: NativeModel;
    try {
      anchor = await loadNativeAddon().loadModel(modelPath, loadOptions);
    } catch (error) {
      throw new EngineError('model_load_failed', `cannot load model ${modelPath}: ${(error as Error).message}`, { cause: error });
    }
    const workerData: PoolWorkerData = { modelPath, loadOptions };
    const pool = new Piscina({
      filename: workerFile.href,
      workerData,
      minThreads: workers,
      maxThreads: workers,
      idleTimeout: Number.POSITIVE_INFINITY,
      concurrentTasksPerWorker: 1,
    });
    return new Engine(pool, anchor, header, workers, threadsPerWorker, maxQueue);
  }

  get model(): NativeModelInfo {
    return this.anchor.info;
  }

  get stats(): EngineStats {
    const running = Math.min(this.pending, this.workers);
    return {
      workers: this.workers,
      threadsPerWorker: this.threadsPerWorker,
      running,
      queued: this.pending - running,
      maxQueue: this.maxQueue,
    };
  }

  async transcribe(pcm: Float32Array, options: TranscribeOptions = {}, call: CallOptions = {}): Promise<Transcript> {
    checkPcm(pcm);
    const channel = call.onProgress ? new MessageChannel() : undefined;
    let reported = 0;
    const report = (percent: number) => {
      // Progress messages travel apart from the result: keep them monotonic and finite.
      if (percent > reported && percent <= 100) {
        reported = percent;
        call.onProgress?.(percent);
      }
    };
    channel?.port1.on('message', report);
    try {
      const task: Omit<TranscribeTask, 'control'> = {
        kind: 'transcribe',
        pcm,
        options: { ...options, threads: this.threadsPerWorker },
        progressPort: channel?.port2,
      };
      const raw = (await this.submit(task, call.signal, channel ? [channel.port2] : [])) as NativeTranscribeResult;
      report(100);
      return shapeTranscript(raw, pcm.length);
    } finally {
      channel?.port1.close();
    }
  }

  async detectLanguage(pcm: Float32Array, options: { offsetMs?: number } = {}, call: Pick<CallOptions, 'signal'> = {}): Promise<LanguageDetection> {
    checkPcm(pcm);
    const task: Omit<DetectLanguageTask, 'control'> = {
      kind: 'detectLanguage',
      pcm,
      offsetMs: options.offsetMs ?? 0,
      threads: this.threadsPerWorker,
    };
    return (await this.submit(task, call.signal, [])) as NativeLanguageResult;
  }

  /** Stops taking calls, lets running and queued calls finish, then frees the workers and the model. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.close();
    this.anchor.release();
  }

  private submit(
    task: Omit<TranscribeTask, 'control'> | Omit<DetectLanguageTask, 'control'>,
    signal: AbortSignal | undefined,
    transferList: Transferable[],
  ): Promise<unknown> {
    if (this.closed) return Promise.reject(new EngineError('engine_closed', 'the engine is closed'));
    if (signal?.aborted) return Promise.reject(abortError());
    if (this.pending >= this.workers + this.maxQueue) {
      return Promise.reject(new EngineError('queue_full', `the engine queue is full (${this.maxQueue} waiting)`));
    }
    const control = new Int32Array(new SharedArrayBuffer(4));
    this.pending++;
    // Piscina's own abort terminates the worker thread; ours asks whisper.cpp to stop cooperatively.
    const running = this.pool
      .run({ ...task, control }, { transferList: transferList as never })
      .finally(() => {
        this.pending--;
      });
    if (!signal) return running;
    return new Promise((resolvePromise, rejectPromise) => {
      const onAbort = () => {
        Atomics.store(control, 0, 1);
        rejectPromise(abortError());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      running.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolvePromise(value);
        },
        (error) => {
          signal.removeEventListener('abort', onAbort);
          rejectPromise(signal.aborted ? abortError() : error);
        },
      );
    });
  }
}

function checkPcm(pcm: Float32Array): void {
  if (!(pcm instanceof Float32Array)) throw new EngineError('invalid_audio', 'pcm must be a Float32Array of 16 kHz mono samples');
  if (pcm.length === 0) throw new EngineError('invalid_audio', 'pcm is empty');
}

export { SAMPLE_RATE };
