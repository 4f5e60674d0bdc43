// How a machine's cores are split between concurrent calls (workers) and threads per call.
//
// Measured with `npm run bench -- pool` on 2 cores (tiny architecture, 6 calls of 30 s, greedy, 32 tokens
// per segment): 2 workers x 1 thread gave 14.35 audio-seconds per second, 1 worker x 2 threads 11.27
// (ratio 1.27). whisper.cpp's per-call threads stop scaling well past a few cores while independent calls
// scale with cores, so throughput favours one thread per worker. Beyond 8 cores the workers get more
// threads instead of multiplying further: each worker holds its own decoding state (tens of MB), and a
// single long recording should not crawl on one thread. (Only the 2-core case is measured here.)

export interface PoolShape {
  workers: number;
  threadsPerWorker: number;
}

export const MAX_DEFAULT_WORKERS = 8;

/**
 * On a GPU (a CUDA build that found a device) the GPU, not the cores, is what calls share. Measured on
 * a lent H200 (CUDA build of this repo, large-v3-turbo shape, random weights, `bench pool`): 1 worker
 * 82 audio-seconds per second, 2 workers 136, 4 workers 222, 8 x 1 thread 206, 8 x 2 threads 228,
 * 16 x 1 thread 213. About four concurrent calls saturate one GPU; more only add memory on it.
 */
export const GPU_WORKERS = 4;

export function defaultPoolShape(cores: number, gpu = false): PoolShape {
  const usable = Math.max(1, Math.floor(cores));
  // The CPU threads of a GPU call do the mel spectrogram and the sampling: the cores are shared out.
  if (gpu) return { workers: GPU_WORKERS, threadsPerWorker: Math.max(1, Math.floor(usable / GPU_WORKERS)) };
  const threadsPerWorker = Math.max(1, Math.floor(usable / MAX_DEFAULT_WORKERS));
  return { workers: Math.max(1, Math.floor(usable / threadsPerWorker)), threadsPerWorker };
}

/**
 * VAD workers: one VAD call is one thread's work (recurrent, frame after frame); two workers split a
 * long recording in two (vad-split.ts), which halves its wait on two cores. More would only take
 * cores from whisper, whose pool is busy whenever the VAD is not.
 */
export function defaultVadWorkers(cores: number): number {
  return Math.max(1, Math.min(2, Math.floor(cores)));
}

/**
 * Workers beyond the compute slots, for urgent calls that hold batch work (work-scheduler.ts): one per
 * slot, so every batch call can make way. Only where a held call costs nothing: single-threaded calls
 * on the CPU. A held call with more threads would leave its other threads spinning at ggml's barrier,
 * and on a GPU a call is held only between decoder steps while keeping its memory on the device.
 */
export function defaultUrgentWorkers(workers: number, threadsPerWorker: number, gpu: boolean): number {
  return !gpu && threadsPerWorker === 1 ? workers : 0;
}
