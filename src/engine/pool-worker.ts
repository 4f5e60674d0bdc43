// Runs inside each Piscina worker thread. The model is acquired from the process-wide registry, so
// a worker adds a reference, not a copy of the weights.
import { workerData } from 'node:worker_threads';
import { loadNativeAddon } from './native-addon.js';
import type { PoolResult, PoolTask, PoolWorkerData } from './pool-task.js';
import { abortError } from './engine-errors.js';

const { modelPath, loadOptions } = workerData as PoolWorkerData;
const addon = loadNativeAddon();
// Synchronous: the main thread has loaded the file already, so this takes a reference, and nothing
// asynchronous is left pending if the pool terminates this thread early. (No top-level await either:
// tsx cannot run one in a worker when the engine runs from its TypeScript sources.)
const model = addon.loadModelSync(modelPath, loadOptions);

export default async function runTask(task: PoolTask): Promise<PoolResult> {
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
