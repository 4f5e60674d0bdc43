// The typed face of the C++ addon (native/). The addon computes; everything that decides
// (defaults, limits, text assembly, error mapping) lives in TypeScript around it.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { DiarizationStages, VoicePitch } from './speaker-diarizer.js';

export type DtwPreset =
  | 'none'
  | 'top_most'
  | 'tiny'
  | 'tiny.en'
  | 'base'
  | 'base.en'
  | 'small'
  | 'small.en'
  | 'medium'
  | 'medium.en'
  | 'large.v1'
  | 'large.v2'
  | 'large.v3'
  | 'large.v3.turbo';

export interface NativeLoadOptions {
  /** Offload to the GPU backend when one was compiled in (CUDA). Default true. */
  useGpu?: boolean;
  /** Flash attention (whisper.cpp's default: true). */
  flashAttn?: boolean;
  /** Alignment heads for DTW token timestamps; 'none' disables DTW. */
  dtw?: DtwPreset;
  /** For dtw 'top_most': how many top text layers provide heads (-1: all). */
  dtwTopN?: number;
}

export interface NativeModelInfo {
  path: string;
  type: string;
  multilingual: boolean;
  nVocab: number;
  nAudioLayer: number;
  nTextLayer: number;
  nAudioState: number;
  nMels: number;
  dtw: DtwPreset;
  /** Decoding states kept for the next call, at the time of reading (native/whisper-state.h). */
  idleStates: number;
  /** The most idle states the model keeps (keepStates; 4 until set). */
  stateLimit: number;
}

export interface NativeDiarizeOptions {
  /** Voices ever told apart (1 to 8); more are merged into these. */
  maxVoices: number;
  /** Voices left at least when the clustering found that many (1 to maxVoices). */
  minVoices: number;
}

export interface NativeSpeakerTurn {
  start: number;
  end: number;
  /** 0-based, in order of first appearance. */
  speaker: number;
}

/**
 * Speaker features of a stretch of 16 kHz PCM (native/speakers/cepstral-features.h): 19 cepstra per
 * 10 ms frame (frame t starts at sample 160 t), rows in `values`; frames outside the regions given are
 * zero. `audible`, per frame: 0 when silent (below -70 dBFS), else its loudness in whole dB above that
 * floor (1 to 255); nonzero means the frame has sound in it. `pitch`, per frame: the natural log of
 * its fundamental frequency in Hz when voiced (native/speakers/pitch-track.h), else 0.
 */
export interface NativeSpeakerFeatures {
  frames: number;
  values: Float32Array;
  audible: Uint8Array;
  pitch: Float32Array;
}

/** A voice's loud-frame cepstral statistics in raw units (native/speakers/voice-profile.h). */
export interface NativeVoiceProfile {
  /** Loud frames (10 ms) the statistics were taken over. */
  frames: number;
  /** 19 values. */
  mean: Float64Array;
  /** 19 x 19, row-major. */
  covariance: Float64Array;
  /** The same frames' log-F0 where voiced: count, mean, variance. */
  pitch: VoicePitch;
}

export interface NativeDiarization {
  /** In time order, non-overlapping, within the regions given. */
  turns: NativeSpeakerTurn[];
  voices: number;
  /** One per voice, in the turns' numbering. */
  profiles: NativeVoiceProfile[];
  /** Segments the regions were cut into. */
  segments: number;
  timings: {
    totalMs: number;
    stages: DiarizationStages;
  };
}

/** A counted reference to a process-wide loaded model. release() drops this reference. */
export interface NativeModel {
  readonly info: NativeModelInfo;
  readonly released: boolean;
  release(): void;
}

export interface NativeTranscribeOptions {
  threads?: number;
  /** ISO 639-1 code, or 'auto' to detect from the first window at offsetMs. Default 'en'. */
  language?: string;
  translate?: boolean;
  initialPrompt?: string;
  carryInitialPrompt?: boolean;
  strategy?: 'greedy' | 'beam';
  beamSize?: number;
  bestOf?: number;
  temperature?: number;
  /** 0 disables temperature fallback. */
  temperatureInc?: number;
  entropyThold?: number;
  logprobThold?: number;
  /**
   * whisper.cpp's own silence skip and fallback condition compare this with whisper.cpp's own no-speech
   * figure, which is 1 / n_vocab on a call's first window (native/no-speech.h), not with a segment's
   * noSpeechProb: above that figure, they never hold.
   */
  noSpeechThold?: number;
  /** Max tokens per segment (0: no cap). */
  maxTokens?: number;
  maxLen?: number;
  splitOnWord?: boolean;
  offsetMs?: number;
  durationMs?: number;
  tokenTimestamps?: boolean;
  noContext?: boolean;
  noTimestamps?: boolean;
  singleSegment?: boolean;
  suppressBlank?: boolean;
  suppressNst?: boolean;
  maxInitialTs?: number;
  audioCtx?: number;
  /**
   * Decode the first window's encoder output a second time, greedily and without the prompt (the
   * vocabulary safety check: native/context-free-decoder.h). The input must be at most 30 s.
   */
  contextFreeCheck?: boolean;
  /**
   * With contextFreeCheck on a call whisper finishes in one window: the check stops once it has sampled
   * this many times the prompted text's tokens (plus an allowance) and reports `capped`.
   */
  checkLengthBound?: number;
  /** Batch work: compute on a background-priority thread (native/compute-threads.h). Default false. */
  background?: boolean;
}

export interface NativeToken {
  id: number;
  /** Raw token bytes: a token may hold part of a multi-byte UTF-8 sequence. */
  bytes: Uint8Array;
  p: number;
  plog: number;
  /** Token timestamps in seconds (-1 when not computed). */
  t0: number;
  t1: number;
  /** DTW timestamp in seconds (-1 when DTW is off). */
  tDtw: number;
  special: boolean;
}

export interface NativeSegment {
  /** Seconds, as whisper.cpp reports them (10 ms resolution), not yet clamped. */
  t0: number;
  t1: number;
  /** Raw segment bytes (whisper's own concatenation of token texts). */
  bytes: Uint8Array;
  /** The no-speech token's probability at the start of the segment's window, from its audio alone (native/no-speech.h). */
  noSpeechProb: number;
  speakerTurnNext: boolean;
  tokens: NativeToken[];
}

export interface NativeTimings {
  /** Wall time of the whole call inside the addon, including state setup. */
  totalMs: number;
  /** State allocation (KV caches, compute buffers). */
  setupMs: number;
  /** Language detection pass when language was 'auto'. */
  detectMs: number;
  /** PCM to log-mel until the first encoder run. */
  melMs: number;
  /** Encoder runs, including each window's prompt pass. */
  encodeMs: number;
  /** Token decoding (sampling, batched decoding). */
  decodeMs: number;
  encoderRuns: number;
  /**
   * Logits the decoders produced: one per decoder per step, as whisper-cli counts its decode runs. The
   * decoding work of the call (a decoder looping on a window shows here long before it shows in text).
   */
  decoderSteps: number;
  /** The context-free check decode (0 without contextFreeCheck). */
  checkMs: number;
  /** Time the call spent held by the engine's scheduler while an urgent call ran (work-scheduler.ts). */
  heldMs: number;
}

/** The context-free check's decode: segments of text tokens between timestamp pairs. */
export interface NativeCheckPass {
  noSpeechProb: number;
  /** Tokens sampled. */
  steps: number;
  /** Stopped at checkLengthBound: longer than the bound allows. */
  capped: boolean;
  segments: Array<{ t0: number; t1: number; bytes: Uint8Array; tokens: Array<{ id: number; bytes: Uint8Array; p: number; special: boolean }> }>;
}

export interface NativeTranscribeResult {
  language: string;
  /** Probability of the language when it was detected, else null. */
  languageProbability: number | null;
  segments: NativeSegment[];
  timings: NativeTimings;
  /** Present when contextFreeCheck was asked and a window was encoded. */
  check?: NativeCheckPass;
}

export interface NativeLanguageResult {
  language: string;
  probabilities: Record<string, number>;
  timings: { totalMs: number };
}

/** A Silero VAD model file as whisper.cpp reads it (from its header). */
export interface NativeVadModelInfo {
  path: string;
  /** 'silero-16k'. */
  type: string;
  /** Silero's release, e.g. '6.2.0'. */
  version: string;
  /** Samples per speech probability: 512 at 16 kHz (32 ms). */
  frameSamples: number;
  /** Silero's context window; whisper.cpp 1.9.1 reads it but does not use it. */
  contextSamples: number;
}

/**
 * A counted reference to a process-wide loaded VAD model. Calls through one model may run
 * concurrently: each checks out its own whisper.cpp VAD context. release() drops this reference.
 */
export interface NativeVadModel {
  readonly info: NativeVadModelInfo;
  readonly released: boolean;
  release(): void;
}

/**
 * whisper.cpp's whisper_vad_params, every field required (defaults live in src/engine/vad-params.ts).
 * samples_overlap is not here: it shapes the audio whisper_full cuts out of the segments, not the
 * segments themselves.
 */
export interface NativeVadParams {
  /** Speech probability at or above which a frame is speech; speech ends below threshold - 0.15. 0..1. */
  threshold: number;
  /** Shorter speech is dropped. Integer ms, 0..100000. */
  minSpeechDurationMs: number;
  /** A pause must last this long to end a segment. Integer ms, 0..100000. */
  minSilenceDurationMs: number;
  /**
   * Longer speech is split, at the last pause of at least 98 ms when there is one, so that a padded
   * segment fits this length. whisper.cpp truncates it to whole seconds; above 100000 means no limit.
   */
  maxSpeechDurationS: number;
  /** Added before and after each segment (a gap shorter than two pads is shared). Integer ms, 0..100000. */
  speechPadMs: number;
  /** The level (dBFS, -100..0) the VAD's input is raised towards: each stretch's gated level (native/speech-level.h) becomes this. */
  levelTargetDb: number;
  /** The most the input is raised, in dB (0..60; 0: not levelled). Never lowered. */
  maxGainDb: number;
  /** How long a stretch is measured around each frame, in ms (integer, 1..100000). */
  levelWindowMs: number;
}

/** How the VAD heard a recording: its gated level (-Infinity: nothing above -70 dBFS) and the most any frame was raised. */
export interface NativeVadLevelling {
  levelDb: number;
  gainDb: number;
}

export interface NativeSpeechSegment {
  /** Seconds from the start of the audio, at sample precision (whisper.cpp itself rounds to 10 ms). */
  start: number;
  /** May reach the end of the last frame, up to frameSamples - 1 samples past the end of the audio. */
  end: number;
}

export interface NativeSpeechDetection {
  frameSamples: number;
  /** Speech probability of each frame: frame i covers samples [i * frameSamples, (i + 1) * frameSamples). */
  probabilities: Float32Array;
  segments: NativeSpeechSegment[];
  timings: {
    /** The whole call inside the addon, including checking out (or creating) a VAD context. */
    totalMs: number;
    /** Silero's forward passes. */
    detectMs: number;
  };
  levelling: NativeVadLevelling;
}

export interface NativeVadStats {
  /** Times a VAD model file was read from disk in this process. */
  loads: number;
  /** VAD models currently resident. */
  resident: number;
  /** whisper.cpp VAD contexts alive (idle or in use) across all VAD models. */
  contexts: number;
  /** Handles (references) currently held across all threads. */
  references: number;
}

export interface NativeModelStats {
  /** Times a model file was read from disk in this process. */
  loads: number;
  /** Models currently resident. */
  resident: number;
  /** Handles (references) currently held across all threads. */
  references: number;
}

export interface NativeSystemInfo {
  whisperVersion: string;
  /** whisper_print_system_info(): SIMD features compiled and detected. */
  features: string;
  /** ggml backend devices available, e.g. ['CPU'] or ['CUDA0', 'CPU']. */
  devices: string[];
  gpu: boolean;
}

export interface NativeAddon {
  loadModel(path: string, options?: NativeLoadOptions): Promise<NativeModel>;
  /**
   * The model's idle decoding states are at most `limit` (0 to 1024) from now on; the least recently
   * kept beyond it are freed. One pool per loaded model, shared by every holder in the process.
   */
  keepStates(model: NativeModel, limit: number): void;
  /** Frees the model's idle decoding states now; how many. */
  releaseStates(model: NativeModel): number;
  /** Same, blocking the calling thread: for worker threads, which have nothing else to do meanwhile. */
  loadModelSync(path: string, options?: NativeLoadOptions): NativeModel;
  /**
   * control: optional Int32Array over a SharedArrayBuffer; a non-zero value in slot 0 aborts, and in
   * slot 1 (where the array has two) holds the call between two steps of its graph until it is cleared.
   * onProgress: percent 0..100, called on the calling thread's event loop.
   * onSegments: the segments whisper.cpp finished since the last call, in the result's own shape, as
   * they are decoded. Advisory: a report may arrive after the promise settles; the result holds all.
   */
  transcribe(
    model: NativeModel,
    pcm: Float32Array,
    options: NativeTranscribeOptions,
    control?: Int32Array,
    onProgress?: (percent: number) => void,
    onSegments?: (segments: NativeSegment[]) => void,
  ): Promise<NativeTranscribeResult>;
  detectLanguage(
    model: NativeModel,
    pcm: Float32Array,
    /** audioCtx: encoder positions (20 ms each) to encode from the offset; 0 or absent: the whole 30 s window. */
    options: { offsetMs?: number; threads?: number; audioCtx?: number },
    control?: Int32Array,
  ): Promise<NativeLanguageResult>;
  loadVadModel(path: string): Promise<NativeVadModel>;
  /** Same, blocking the calling thread: for worker threads. */
  loadVadModelSync(path: string): NativeVadModel;
  /**
   * Silero VAD over 16 kHz mono PCM, single-threaded. control: as for transcribe, aborted or held
   * between chunks of 256 frames, about 8 s of audio.
   */
  detectSpeech(model: NativeVadModel, pcm: Float32Array, params: NativeVadParams, control?: Int32Array): Promise<NativeSpeechDetection>;
  /**
   * Speaker turns over the speech regions (seconds, in time order, non-overlapping), single-threaded
   * on the libuv pool. control: as for transcribe (checked between stages).
   */
  diarize(
    input: Float32Array | NativeSpeakerFeatures,
    regions: ReadonlyArray<{ start: number; end: number }>,
    options: NativeDiarizeOptions,
    control?: Int32Array,
  ): Promise<NativeDiarization>;
  /** The diarizer's first stage alone over one window of a recording (regions: seconds from its first sample). */
  speakerFeatures(pcm: Float32Array, regions: ReadonlyArray<{ start: number; end: number }>, control?: Int32Array): Promise<NativeSpeakerFeatures>;
  vadStats(): NativeVadStats;
  modelStats(): NativeModelStats;
  systemInfo(): NativeSystemInfo;
  /** Routes whisper.cpp/ggml log lines to stderr (true) or drops them (false, the default). */
  setLogging(enabled: boolean): void;
  languages(): string[];
}

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let cached: NativeAddon | undefined;

/**
 * Loads the addon through node-gyp-build: a local build in build/Release (a source build: tuned for
 * this CPU, or CUDA) wins over the portable prebuild for this platform in prebuilds/.
 */
export function loadNativeAddon(): NativeAddon {
  if (!cached) {
    const require = createRequire(import.meta.url);
    const nodeGypBuild = require('node-gyp-build') as (dir: string) => NativeAddon;
    try {
      cached = nodeGypBuild(packageRoot);
    } catch (error) {
      // node-gyp-build's message names the platform or the missing library, but not the way out.
      const reason = String(error instanceof Error ? error.message : error).split('\n')[0];
      throw new Error(
        `svc-stt native addon could not be loaded (${reason}); build it from source: ` +
          '`SVC_FORCE_BUILD=1 npm rebuild svc-stt`, or `npm run build:native` in a checkout',
        { cause: error },
      );
    }
  }
  return cached;
}
