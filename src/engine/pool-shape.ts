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

export function defaultPoolShape(cores: number): PoolShape {
  const usable = Math.max(1, Math.floor(cores));
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
