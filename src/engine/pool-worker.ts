// Runs inside each Piscina worker thread. The model is acquired from the process-wide registry, so
// a worker adds a reference, not a copy of the weights.
import { workerData } from 'node:worker_threads';
import { loadNativeAddon } from './native-addon.js';
import type { PoolResult, PoolTask, PoolWorkerData } from './pool-task.js';
import { abortError } from './engine-errors.js';

const { modelPath, loadOptions } = workerData as PoolWorkerData;
const addon = loadNativeAddon();
// Loading starts with the thread, without a top-level await (which tsx cannot run in a worker when
// the engine runs from its TypeScript sources); the first task waits for it.
const modelReady = addon.loadModel(modelPath, loadOptions);
modelReady.catch(() => {}); // reported by each task that needs the model, not as an unhandled rejection

export default async function runTask(task: PoolTask): Promise<PoolResult> {
  const model = await modelReady;
  // A task cancelled while it waited in the queue never reaches the model.
  if (Atomics.load(task.control, 0) !== 0) throw abortError();
  if (task.kind === 'detectLanguage') {
    return addon.detectLanguage(model, task.pcm, { offsetMs: task.offsetMs, threads: task.threads }, task.control);
  }
  const port = task.progressPort;
  try {
    return await addon.transcribe(
      model,
      task.pcm,
      task.options,
      task.control,
      port ? (percent: number) => port.postMessage(percent) : undefined,
    );
  } finally {
    port?.close();
  }
}
