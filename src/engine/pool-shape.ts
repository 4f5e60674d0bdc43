// How a machine's cores are split between concurrent calls (workers) and threads per call.
// Measured with `npm run bench -- pool` (see README "Benchmarks"): recorded in defaultPoolShape.

export interface PoolShape {
  workers: number;
  threadsPerWorker: number;
}

export function defaultPoolShape(cores: number): PoolShape {
  const usable = Math.max(1, cores);
  return { workers: 1, threadsPerWorker: usable };
}
