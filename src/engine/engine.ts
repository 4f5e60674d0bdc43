// The engine: one model per process, a Piscina pool of worker threads calling the addon, a bounded
// queue that rejects fast when full. Used by the service, the CLI, the benchmarks and library users.
//
// Voice activity detection runs in a pool of its own (up to two workers), not in the whisper pool.
// A whisper call holds its worker for seconds; Silero VAD needs about 2 ms per second of audio on one
// thread. Sharing the pool would make every VAD call (the pipeline's first stage, and realtime turn
// detection) wait behind whole transcriptions, and would take whisper workers for work that needs no
// whisper model. The cost is one mostly idle thread, whose short bursts briefly share the cores with
// the whisper workers.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { MessageChannel } from 'node:worker_threads';

import { Piscina } from 'piscina';

import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { EngineWork, WorkClass } from '../domain/work-classes.js';
import { type ModelHeader, readModelHeader } from '../models/model-header.js';
import { ModelFileError, readVadModelHeader } from '../models/vad-model-header.js';
import { alignmentHeadsOf, type WordAlignment } from './alignment-heads.js';
import { abortError, EngineError } from './engine-errors.js';
import { startEngineSpan } from './engine-span.js';
import { DEFAULT_KEPT_STATES_IDLE_MS, KeptStates } from './kept-states.js';
import {
  loadNativeAddon,
  type NativeDiarization,
  type NativeLanguageResult,
  type NativeLoadOptions,
  type NativeModel,
  type NativeModelInfo,
  type NativeSpeechDetection,
  type NativeTranscribeOptions,
  type NativeTranscribeResult,
  type NativeVadLevelling,
  type NativeVadModel,
  type NativeVadModelInfo,
} from './native-addon.js';
import { defaultPoolShape, defaultUrgentWorkers, defaultVadWorkers } from './pool-shape.js';
import type {
  CallReport,
  DetectLanguageTask,
  DetectSpeechTask,
  DiarizeTask,
  PoolTask,
  PoolWorkerData,
  SpeakerFeaturesTask,
  TranscribeTask,
} from './pool-task.js';
import { type UnsentTask, withThreads } from './pool-task.js';
import { RecentRequests } from './recent-requests.js';
import { SegmentReports } from './segment-reports.js';
import { DIARIZER_MAX_VOICES, type SpeakerDiarization, type SpeakerDiarizer, type SpeakerFeatures } from './speaker-diarizer.js';
import { shapeTranscript, type Transcript, type TranscriptSegment } from './transcript.js';
import { holdPauses, TURN_PAUSE_SECONDS } from './turn-pauses.js';
import { nativeVadParams, resolveVadParams, type VadParams } from './vad-params.js';
import { joinPieces, pieceStarts } from './vad-split.js';
import { type WorkClassStats, WorkScheduler } from './work-scheduler.js';

export interface EngineOpenOptions {
  /** Path of a whisper.cpp ggml model file. */
  model: string;
  /** Worker threads, each running one call at a time. Default: see pool-shape.ts. */
  workers?: number;
  /** Compute threads per call. Default: see pool-shape.ts. */
  threadsPerWorker?: number;
  /**
   * Workers beyond `workers` that run urgent calls (realtime, inline) while the batch calls they
   * displace are held (work-scheduler.ts). Default: see pool-shape.ts.
   */
  urgentWorkers?: number;
  /**
   * A transcription or language call of a realtime final or an inline request that starts while nothing
   * else waits computes with the threads of the idle workers too (work-scheduler.ts): on a quiet box one
   * short request uses every core. Default true on the CPU; false on a GPU, whose calls need no more threads.
   */
  lendIdleWorkers?: boolean;
  /**
   * Requests allowed to wait for a worker, in each pool and work class; beyond it a new request's call
   * rejects with code 'queue_full' (a request already waiting may add calls: work-scheduler.ts).
   */
  maxQueue?: number;
  load?: NativeLoadOptions;
  /**
   * How long without a whisper call before the model's kept decoding states are freed (kept-states.ts);
   * Infinity keeps them. Default DEFAULT_KEPT_STATES_IDLE_MS.
   */
  keptStatesIdleMs?: number;
  /** Path of a Silero VAD model in whisper.cpp's ggml format; enables detectSpeech(). */
  vadModel?: string;
  /** Worker threads of the VAD pool (one VAD call each, single-threaded). Default: see pool-shape.ts. */
  vadWorkers?: number;
  /**
   * `dtw`: word times by DTW over the model's alignment heads (alignment-heads.ts), where its header
   * names a released model; other models keep token timestamps. It costs every call: whisper.cpp
   * computes DTW without flash attention, which it turns off (`bench word-alignment` measures it).
   * Default `tokens`. An explicit `load.dtw` wins.
   */
  wordAlignment?: WordAlignment;
}

/** What a caller decides of a transcription; the engine decides threads, and priority from the call's work. */
export type TranscribeOptions = Omit<NativeTranscribeOptions, 'threads' | 'background'>;

export interface CallOptions {
  signal?: AbortSignal;
  /** Whose call this is and how urgent (work-scheduler.ts); without it, a request of its own, as urgent as inline. */
  work?: EngineWork;
  /** Percent 0..100, non-decreasing, ending at 100 on success. */
  onProgress?: (percent: number) => void;
  /**
   * Segments as they are decoded, in order, each once, before the call resolves: the same segments
   * the transcript holds (a caller may stream their text). Not called for a call that fails.
   */
  onSegments?: (segments: TranscriptSegment[]) => void;
}

export interface LanguageDetection {
  language: string;
  probabilities: Record<string, number>;
  timings: { totalMs: number };
}

/** A stretch of speech, in seconds from the start of the audio. */
export interface SpeechSegment {
  start: number;
  end: number;
}

export interface SpeechDetection {
  /** Samples per probability: 512 (32 ms at 16 kHz). */
  frameSamples: number;
  /** Silero's speech probability per frame: frame i covers samples [i * frameSamples, (i + 1) * frameSamples). */
  probabilities: Float32Array;
  /** Speech under the parameters, padded, in order, within the audio. */
  segments: SpeechSegment[];
  timings: { totalMs: number; detectMs: number };
  /** How each piece the audio was shared in (vad-split.ts; one for short audio) was levelled for the VAD, in order. */
  levelling: NativeVadLevelling[];
}

export interface VadPoolStats {
  workers: number;
  running: number;
  queued: number;
  /** Times a batch VAD call was held for an urgent one, since open. */
  holds: number;
}

export interface EngineStats {
  workers: number;
  threadsPerWorker: number;
  urgentWorkers: number;
  /** Calls on a worker, held ones included. */
  running: number;
  /** Batch calls held while urgent calls run in their place. */
  held: number;
  /** Times a batch call was held, since open. */
  holds: number;
  /** Idle workers whose threads went to a call that started alone, summed since open. */
  lent: number;
  /** Calls waiting for a worker. */
  queued: number;
  /** Requests that may wait for a worker, in each work class. */
  maxQueue: number;
  /** The whisper pool's queue by work class (work-scheduler.ts). */
  classes: Record<WorkClass, WorkClassStats>;
  /** Present when the engine has a VAD model. */
  vad?: VadPoolStats;
  /** Calls handed to a worker since open, by operation: what the pipeline asked of the models (silence makes no transcribe call). */
  calls: Record<PoolTask['kind'], number>;
  /** Encoder runs of the transcribe calls that finished, summed since open. */
  encoderRuns: number;
  /** Decoder steps of the transcribe calls that finished (NativeTimings.decoderSteps), summed since open. */
  decoderSteps: number;
}

const workerFile = new URL(import.meta.url.endsWith('.ts') ? './pool-worker.ts' : './pool-worker.js', import.meta.url);

/** One Piscina pool and the scheduler that feeds it (work-scheduler.ts): the pool itself never queues. */
class PoolLane {
  readonly scheduler: WorkScheduler;

  constructor(
    readonly pool: Piscina,
    /** Calls computing at once. */
    readonly workers: number,
    maxQueue: number,
    /** Workers beyond those, for urgent calls while batch calls are held. */
    urgentWorkers = 0,
    /** The requests at work, shared by the engine's lanes. */
    recent: RecentRequests,
    /** Classes whose lone calls compute with the idle workers' threads too. */
    lendTo: readonly WorkClass[] = [],
  ) {
    this.scheduler = new WorkScheduler(workers, maxQueue, { urgentSlots: urgentWorkers, lendTo, recent });
  }
}

interface VadLane {
  lane: PoolLane;
  anchor: NativeVadModel;
}

export class Engine implements SpeakerDiarizer {
  private closed = false;
  private readonly callCounts: Record<PoolTask['kind'], number> = { transcribe: 0, detectLanguage: 0, detectSpeech: 0, diarize: 0, speakerFeatures: 0 };
  private readonly computed = { encoderRuns: 0, decoderSteps: 0 };

  private readonly keptStates: KeptStates;

  private constructor(
    private readonly whisper: PoolLane,
    private readonly anchor: NativeModel,
    private readonly vad: VadLane | undefined,
    readonly header: ModelHeader,
    readonly workers: number,
    readonly threadsPerWorker: number,
    readonly maxQueue: number,
    readonly urgentWorkers: number,
    keptStatesIdleMs: number,
  ) {
    // As many idle states as calls can run at once: each call gives back at most one.
    this.keptStates = new KeptStates(loadNativeAddon(), anchor, workers + urgentWorkers, keptStatesIdleMs);
  }

  static async open(options: EngineOpenOptions): Promise<Engine> {
    const modelPath = resolve(options.model);
    // whisper.cpp may abort() on a malformed file, so a file must pass our own checks first.
    const header = await readModelHeader(modelPath);
    const gpu = loadNativeAddon().systemInfo().gpu;
    const shape = defaultPoolShape(availableParallelism(), gpu);
    const workers = options.workers ?? shape.workers;
    const threadsPerWorker = options.threadsPerWorker ?? shape.threadsPerWorker;
    const urgentWorkers = options.urgentWorkers ?? defaultUrgentWorkers(workers, threadsPerWorker, gpu);
    const maxQueue = options.maxQueue ?? Math.max(8, workers * 4);
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError('workers must be a positive integer');
    if (!Number.isInteger(threadsPerWorker) || threadsPerWorker < 1) throw new RangeError('threadsPerWorker must be a positive integer');
    if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new RangeError('maxQueue must be a non-negative integer');
    if (!Number.isInteger(urgentWorkers) || urgentWorkers < 0) throw new RangeError('urgentWorkers must be a non-negative integer');
    const keptStatesIdleMs = options.keptStatesIdleMs ?? DEFAULT_KEPT_STATES_IDLE_MS;
    if (!(keptStatesIdleMs >= 0)) throw new RangeError('keptStatesIdleMs must be a non-negative number of milliseconds');
    const vadWorkers = options.vadWorkers ?? defaultVadWorkers(availableParallelism());
    if (!Number.isInteger(vadWorkers) || vadWorkers < 1) throw new RangeError('vadWorkers must be a positive integer');
    const loadOptions: NativeLoadOptions = { ...dtwLoadOptions(options.wordAlignment ?? 'tokens', header), ...options.load };
    // whisper.cpp silently drops DTW under flash attention: DTW asked for is DTW computed.
    if (loadOptions.dtw !== undefined && loadOptions.dtw !== 'none') loadOptions.flashAttn = false;
    // The VAD model first: it is small, so a bad one fails open() before the whisper model is read.
    const vadAnchor = options.vadModel === undefined ? undefined : await loadVadModel(resolve(options.vadModel));
    // The main thread's reference keeps the weights resident for the engine's life, and makes a
    // failed load an error of open() rather than of the first call.
    let anchor: NativeModel;
    try {
      anchor = await loadNativeAddon().loadModel(modelPath, loadOptions);
    } catch (error) {
      vadAnchor?.release();
      throw new EngineError('model_load_failed', `cannot load model ${modelPath}: ${(error as Error).message}`, { cause: error });
    }
    const lendTo: WorkClass[] = (options.lendIdleWorkers ?? !gpu) ? ['realtime_final', 'interactive'] : [];
    const recent = new RecentRequests();
    const whisper = new PoolLane(startPool({ whisper: { modelPath, loadOptions } }, workers + urgentWorkers), workers, maxQueue, urgentWorkers, recent, lendTo);
    const vad = vadAnchor && {
      // VAD calls are single-threaded and held between chunks: a spare worker per VAD worker always pays.
      lane: new PoolLane(startPool({ vadModelPath: vadAnchor.info.path }, 2 * vadWorkers), vadWorkers, maxQueue, vadWorkers, recent),
      anchor: vadAnchor,
    };
    return new Engine(whisper, anchor, vad, header, workers, threadsPerWorker, maxQueue, urgentWorkers, keptStatesIdleMs);
  }

  get model(): NativeModelInfo {
    return this.anchor.info;
  }

  /** How this engine's word times are found (`dtw` only where the model loaded with alignment heads). */
  get wordAlignment(): WordAlignment {
    return this.anchor.info.dtw === 'none' ? 'tokens' : 'dtw';
  }

  /** The VAD model, when the engine was opened with one. */
  get vadModel(): NativeVadModelInfo | undefined {
    return this.vad?.anchor.info;
  }

  get stats(): EngineStats {
    const { scheduler } = this.whisper;
    const stats: EngineStats = {
      workers: this.workers,
      threadsPerWorker: this.threadsPerWorker,
      urgentWorkers: this.urgentWorkers,
      running: scheduler.active,
      held: scheduler.held,
      holds: scheduler.holdsMade,
      lent: scheduler.slotsLent,
      queued: scheduler.queued,
      maxQueue: this.maxQueue,
      classes: scheduler.stats(),
      calls: { ...this.callCounts },
      ...this.computed,
    };
    if (this.vad) {
      const { lane } = this.vad;
      stats.vad = { workers: lane.workers, running: lane.scheduler.active, queued: lane.scheduler.queued, holds: lane.scheduler.holdsMade };
    }
    return stats;
  }

  /** Whether a new request of `workClass` would be taken now rather than refused with 'queue_full'. */
  hasRoomFor(workClass: WorkClass): boolean {
    return this.whisper.scheduler.hasRoomFor(workClass);
  }

  async transcribe(pcm: Float32Array, options: TranscribeOptions = {}, call: CallOptions = {}): Promise<Transcript> {
    checkPcm(pcm);
    const channel = call.onProgress || call.onSegments ? new MessageChannel() : undefined;
    let reported = 0;
    const report = (percent: number) => {
      // Progress messages travel apart from the result: keep them monotonic and finite.
      if (percent > reported && percent <= 100) {
        reported = percent;
        call.onProgress?.(percent);
      }
    };
    const segments = new SegmentReports(pcm.length, call.onSegments);
    channel?.port1.on('message', (message: CallReport) => {
      if (message.kind === 'progress') report(message.percent);
      else segments.decoded(message.segments);
    });
    try {
      const task: Omit<TranscribeTask, 'control'> = {
        kind: 'transcribe',
        pcm,
        // Batch work computes at a lower priority than urgent work that may share its core.
        options: { ...options, threads: this.threadsPerWorker, background: call.work?.workClass === 'batch' },
        reportPort: channel?.port2,
        reportSegments: call.onSegments !== undefined,
      };
      const raw = (await this.submit(this.whisper, task, call, channel ? [channel.port2] : [], true)) as NativeTranscribeResult;
      this.computed.encoderRuns += raw.timings.encoderRuns;
      this.computed.decoderSteps += raw.timings.decoderSteps;
      // Reports arriving after this are ignored: progress never goes back from 100, segments are finished.
      report(100);
      const transcript = shapeTranscript(raw, pcm.length);
      segments.finished(transcript.segments);
      return transcript;
    } finally {
      channel?.port1.close();
    }
  }

  /**
   * Language probabilities of the 30 s window at `offsetMs`. `audioSeconds`: encode only that much audio
   * from the offset (rounded up to whole 20 ms encoder positions), for speech known to be shorter than a
   * window: the encoder's cost shrinks with it.
   */
  async detectLanguage(
    pcm: Float32Array,
    options: { offsetMs?: number; audioSeconds?: number } = {},
    call: Pick<CallOptions, 'signal' | 'work'> = {},
  ): Promise<LanguageDetection> {
    checkPcm(pcm);
    const task: Omit<DetectLanguageTask, 'control'> = {
      kind: 'detectLanguage',
      pcm,
      offsetMs: Math.round(options.offsetMs ?? 0),
      audioCtx: options.audioSeconds === undefined ? 0 : audioContextFor(options.audioSeconds, this.header),
      threads: this.threadsPerWorker,
    };
    return (await this.submit(this.whisper, task, call, [])) as NativeLanguageResult;
  }

  /**
   * Silero VAD over 16 kHz mono PCM, in the VAD pool: speech probability per 32 ms frame and the speech
   * segments under `params` (defaults: vad-params.ts). Segments end within the audio.
   */
  async detectSpeech(pcm: Float32Array, params: Partial<VadParams> = {}, call: Pick<CallOptions, 'signal' | 'work'> = {}): Promise<SpeechDetection> {
    if (!this.vad) throw new EngineError('vad_not_configured', 'the engine was opened without a VAD model (vadModel)');
    checkPcm(pcm);
    const native = nativeVadParams(resolveVadParams(params));
    const frameSamples = this.vad.anchor.info.frameSamples;
    // Long audio is shared among the VAD workers (vad-split.ts); short audio is one call.
    const starts = pieceStarts(pcm, SAMPLE_RATE, frameSamples, this.vad.lane.workers);
    const raws = await Promise.all(
      starts.map((start, k) => {
        const piece = starts.length === 1 ? pcm : pcm.slice(start, starts[k + 1] ?? pcm.length);
        const task: Omit<DetectSpeechTask, 'control'> = { kind: 'detectSpeech', pcm: piece, params: native };
        return this.submit(this.vad!.lane, task, call, [], true) as Promise<NativeSpeechDetection>;
      }),
    );
    const joined = joinPieces(
      raws,
      starts.map((s) => s / SAMPLE_RATE),
    );
    // whisper.cpp lets the last segment run to the end of the last (zero-padded) frame.
    const duration = pcm.length / SAMPLE_RATE;
    const segments = joined.segments.map((s) => ({ start: Math.min(s.start, duration), end: Math.min(s.end, duration) })).filter((s) => s.end > s.start);
    // The pieces ran at once: the call took as long as the slowest.
    const timings = { totalMs: Math.max(...raws.map((r) => r.timings.totalMs)), detectMs: Math.max(...raws.map((r) => r.timings.detectMs)) };
    return { frameSamples, probabilities: joined.probabilities, segments, timings, levelling: raws.map((r) => r.levelling) };
  }

  /**
   * Who spoke when (native/speakers/diarizer.h): speaker turns over the given speech regions of 16 kHz
   * mono PCM, or of a recording's features joined from its windows (speakerFeatures), each holding its
   * talker's pauses of up to TURN_PAUSE_SECONDS between regions. Needs no model; runs on a VAD worker
   * when there is one, else on a whisper worker.
   */
  async diarize(
    input: Float32Array | SpeakerFeatures,
    regions: ReadonlyArray<{ start: number; end: number }>,
    options: { maxVoices?: number; minVoices?: number } = {},
    call: Pick<CallOptions, 'signal' | 'work'> = {},
  ): Promise<SpeakerDiarization> {
    if (input instanceof Float32Array) checkPcm(input);
    const task: Omit<DiarizeTask, 'control'> = {
      kind: 'diarize',
      input,
      regions: regions.map((r) => ({ start: r.start, end: r.end })),
      options: { maxVoices: options.maxVoices ?? DIARIZER_MAX_VOICES, minVoices: options.minVoices ?? 1 },
    };
    const raw = (await this.submit(this.vad?.lane ?? this.whisper, task, call, [])) as NativeDiarization;
    // The addon's turns follow the speech regions; a turn holds its talker's short pauses (turn-pauses.ts),
    // here, so that every caller (inline, a job's decoration, realtime labels, the benches) gets the same turns.
    return { turns: holdPauses(raw.turns, TURN_PAUSE_SECONDS), voices: raw.voices, profiles: raw.profiles, timings: raw.timings };
  }

  /** The diarizer's first stage over one window of a recording (see SpeakerFeatureCanvas). */
  async speakerFeatures(
    pcm: Float32Array,
    regions: ReadonlyArray<{ start: number; end: number }>,
    call: Pick<CallOptions, 'signal' | 'work'> = {},
  ): Promise<SpeakerFeatures> {
    checkPcm(pcm);
    const task: Omit<SpeakerFeaturesTask, 'control'> = { kind: 'speakerFeatures', pcm, regions: regions.map((r) => ({ start: r.start, end: r.end })) };
    return (await this.submit(this.vad?.lane ?? this.whisper, task, call, [])) as SpeakerFeatures;
  }

  /** Stops taking calls, lets running and queued calls finish, then frees the workers and the model. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Waiting calls are still handed to the workers: the pools close once the schedulers are empty.
    await Promise.all([this.whisper.scheduler.drained(), this.vad?.lane.scheduler.drained()]);
    await Promise.all([this.whisper.pool.close(), this.vad?.lane.pool.close()]);
    this.keptStates.close();
    this.anchor.release();
    this.vad?.anchor.release();
  }

  private submit(
    lane: PoolLane,
    task: UnsentTask,
    call: Pick<CallOptions, 'signal' | 'work'>,
    transferList: Transferable[],
    holdable = false,
  ): Promise<unknown> {
    const { signal } = call;
    if (this.closed) return Promise.reject(new EngineError('engine_closed', 'the engine is closed'));
    if (signal?.aborted) return Promise.reject(abortError());
    // Slot 0: abort. Slot 1, on calls that can be held: hold (native/abort-control.h).
    const control = new Int32Array(new SharedArrayBuffer(holdable ? 8 : 4));
    // Piscina's own abort terminates the worker thread; ours asks whisper.cpp to stop cooperatively.
    const span = startEngineSpan(task.kind, call.work);
    const running = lane.scheduler.schedule(
      call.work,
      (share) => {
        this.callCounts[task.kind]++;
        span.dispatched(share);
        const threads = share > 1 ? withThreads(task, this.threadsPerWorker * share) : task;
        return lane.pool.run({ ...threads, control }, { transferList: transferList as never });
      },
      signal,
      holdable ? { hold: () => Atomics.store(control, 1, 1), resume: () => Atomics.store(control, 1, 0) } : undefined,
    );
    running.then(
      (value) => span.end(null, task.kind === 'transcribe' ? (value as NativeTranscribeResult).timings : undefined),
      (error: unknown) => span.end(error),
    );
    if (lane === this.whisper) this.keptStates.track(running);
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

function startPool(workerData: PoolWorkerData, workers: number): Piscina {
  return new Piscina({
    filename: workerFile.href,
    workerData,
    minThreads: workers,
    maxThreads: workers,
    idleTimeout: Number.POSITIVE_INFINITY,
    concurrentTasksPerWorker: 1,
  });
}

/**
 * The main thread's reference to the VAD model. The file is checked first: whisper.cpp's VAD loader
 * trusts it, and a damaged file must fail open(), never a call or the process later.
 */
async function loadVadModel(path: string): Promise<NativeVadModel> {
  try {
    await readVadModelHeader(path);
    return await loadNativeAddon().loadVadModel(path);
  } catch (error) {
    // A ModelFileError's message starts with the path already.
    const reason = error instanceof ModelFileError ? error.message : `${path}: ${(error as Error).message}`;
    throw new EngineError('vad_model_load_failed', `cannot load VAD model ${reason}`, { cause: error });
  }
}

/** Encoder positions covering `seconds` of audio (each covers 20 ms), within the model's window. */
/** DTW where asked and the model has known heads; whisper.cpp computes it only without flash attention. */
function dtwLoadOptions(alignment: WordAlignment, header: ModelHeader): NativeLoadOptions {
  if (alignment !== 'dtw') return {};
  const dtw = alignmentHeadsOf(header);
  return dtw === 'none' ? {} : { dtw };
}

/** Encoder positions (20 ms each) that cover `seconds` of audio: whisper.cpp's `audio_ctx` for short audio. */
export function audioContextFor(seconds: number, header: ModelHeader): number {
  if (!(seconds > 0)) throw new RangeError('audioSeconds must be a positive number');
  return Math.min(header.nAudioCtx, Math.ceil(seconds / ENCODER_POSITION_SECONDS));
}

const ENCODER_POSITION_SECONDS = 0.02;

function checkPcm(pcm: Float32Array): void {
  if (!(pcm instanceof Float32Array)) throw new EngineError('invalid_audio', 'pcm must be a Float32Array of 16 kHz mono samples');
  if (pcm.length === 0) throw new EngineError('invalid_audio', 'pcm is empty');
}

export { SAMPLE_RATE };
