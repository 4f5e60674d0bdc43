// The message shapes between the Engine (main thread) and its pool workers.
import type { MessagePort } from 'node:worker_threads';
import type { NativeLanguageResult, NativeLoadOptions, NativeTranscribeOptions, NativeTranscribeResult } from './native-addon.js';

export interface PoolWorkerData {
  modelPath: string;
  loadOptions: NativeLoadOptions;
}

export interface TranscribeTask {
  kind: 'transcribe';
  pcm: Float32Array;
  options: NativeTranscribeOptions;
  /** Int32Array over a SharedArrayBuffer: slot 0 non-zero = abort. */
  control: Int32Array;
  progressPort?: MessagePort;
}

export interface DetectLanguageTask {
  kind: 'detectLanguage';
  pcm: Float32Array;
  offsetMs: number;
  threads: number;
  control: Int32Array;
}

export type PoolTask = TranscribeTask | DetectLanguageTask;
export type PoolResult = NativeTranscribeResult | NativeLanguageResult;
