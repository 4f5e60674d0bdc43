// The message shapes between the Engine (main thread) and its pool workers.
import type { MessagePort } from 'node:worker_threads';

import type {
  NativeDiarization,
  NativeDiarizeOptions,
  NativeLanguageResult,
  NativeLoadOptions,
  NativeSegment,
  NativeSpeakerFeatures,
  NativeSpeechDetection,
  NativeTranscribeOptions,
  NativeTranscribeResult,
  NativeVadParams,
} from './native-addon.js';

/** What a worker holds: the whisper model (the whisper pool) or the VAD model (the VAD pool). */
export interface PoolWorkerData {
  whisper?: { modelPath: string; loadOptions: NativeLoadOptions };
  vadModelPath?: string;
}

export interface TranscribeTask {
  kind: 'transcribe';
  pcm: Float32Array;
  options: NativeTranscribeOptions;
  /** Int32Array over a SharedArrayBuffer: slot 0 non-zero = abort. */
  control: Int32Array;
  /** Where the worker posts the call's reports (progress, segments decoded so far) when asked for. */
  reportPort?: MessagePort;
  /** Report segments as they are decoded (engine.ts CallOptions.onSegments). */
  reportSegments?: boolean;
}

/** What a transcribe call reports while it runs, through its reportPort. */
export type CallReport = { kind: 'progress'; percent: number } | { kind: 'segments'; segments: NativeSegment[] };

export interface DetectLanguageTask {
  kind: 'detectLanguage';
  pcm: Float32Array;
  offsetMs: number;
  audioCtx: number;
  threads: number;
  control: Int32Array;
}

export interface DetectSpeechTask {
  kind: 'detectSpeech';
  pcm: Float32Array;
  params: NativeVadParams;
  control: Int32Array;
}

/** Needs no model: any worker runs it (the engine sends it to the VAD pool when there is one). */
export interface DiarizeTask {
  kind: 'diarize';
  /** The recording's PCM, or its speaker features joined from windows (SpeakerFeaturesTask). */
  input: Float32Array | NativeSpeakerFeatures;
  regions: Array<{ start: number; end: number }>;
  options: NativeDiarizeOptions;
  control: Int32Array;
}

/** Needs no model, like DiarizeTask. */
export interface SpeakerFeaturesTask {
  kind: 'speakerFeatures';
  pcm: Float32Array;
  regions: Array<{ start: number; end: number }>;
  control: Int32Array;
}

export type PoolTask = TranscribeTask | DetectLanguageTask | DetectSpeechTask | DiarizeTask | SpeakerFeaturesTask;
export type PoolResult = NativeTranscribeResult | NativeLanguageResult | NativeSpeechDetection | NativeDiarization | NativeSpeakerFeatures;

/** `task` computing on `threads` threads, for the operations whose threads are per call (the others as they are). */
/** A task as the engine builds it, before its control array is added (each kind of task keeps its fields). */
export type UnsentTask = PoolTask extends infer T ? (T extends PoolTask ? Omit<T, 'control'> : never) : never;

export function withThreads(task: UnsentTask, threads: number): UnsentTask {
  if (task.kind === 'transcribe') return { ...task, options: { ...task.options, threads } };
  if (task.kind === 'detectLanguage') return { ...task, threads };
  return task;
}
