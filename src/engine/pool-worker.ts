// Runs inside each Piscina worker thread, of the whisper pool or of the VAD pool (engine.ts). Models are
// acquired from the process-wide registries, so a worker adds a reference, not a copy of the weights.
import { workerData } from 'node:worker_threads';

import { abortError } from './engine-errors.js';
import type { NativeSegment } from './native-addon.js';
import { loadNativeAddon } from './native-addon.js';
import type { CallReport, PoolResult, PoolTask, PoolWorkerData } from './pool-task.js';

const { whisper, vadModelPath } = workerData as PoolWorkerData;
const addon = loadNativeAddon();
// Synchronous: the main thread has loaded the files already, so this takes references, and nothing
// asynchronous is left pending if the pool terminates this thread early. (No top-level await either:
// tsx cannot run one in a worker when the engine runs from its TypeScript sources.)
const model = whisper ? addon.loadModelSync(whisper.modelPath, whisper.loadOptions) : undefined;
const vadModel = vadModelPath !== undefined ? addon.loadVadModelSync(vadModelPath) : undefined;

export default async function runTask(task: PoolTask): Promise<PoolResult> {
  // A task cancelled while it waited in the queue never reaches the model.
  if (Atomics.load(task.control, 0) !== 0) throw abortError();
  if (task.kind === 'diarize') return addon.diarize(task.input, task.regions, task.options, task.control);
  if (task.kind === 'speakerFeatures') return addon.speakerFeatures(task.pcm, task.regions, task.control);
  if (task.kind === 'detectSpeech') {
    if (!vadModel) throw new Error('this worker holds no VAD model');
    return addon.detectSpeech(vadModel, task.pcm, task.params, task.control);
  }
  if (!model) throw new Error('this worker holds no whisper model');
  if (task.kind === 'detectLanguage') {
    return addon.detectLanguage(model, task.pcm, { offsetMs: task.offsetMs, threads: task.threads, audioCtx: task.audioCtx }, task.control);
  }
  const port = task.reportPort;
  const report = (message: CallReport) => port?.postMessage(message);
  try {
    return await addon.transcribe(
      model,
      task.pcm,
      task.options,
      task.control,
      port ? (percent: number) => report({ kind: 'progress', percent }) : undefined,
      port && task.reportSegments ? (segments: NativeSegment[]) => report({ kind: 'segments', segments }) : undefined,
    );
  } finally {
    port?.close();
  }
}
