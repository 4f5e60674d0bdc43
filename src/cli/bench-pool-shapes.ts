// Which pool shapes `svc-stt bench` measures. Asked for one (--workers and/or --threads): that one.
// Otherwise the two ends of the trade-off, all cores on one call and one core per call (as
// `npm run bench -- pool`, which chose the default), plus the service's default shape where it is
// neither (more than 8 cores: see pool-shape.ts). On a GPU, where calls share the device rather than
// the cores, 1, 2, 4 and 8 concurrent calls with the cores shared out among them (the default is 4).
import { defaultPoolShape, type PoolShape } from '../engine/pool-shape.js';

const GPU_WORKER_COUNTS = [1, 2, 4, 8];

export interface BenchPoolShape extends PoolShape {
  /** The shape `svc-stt serve` uses on this machine unless told otherwise. */
  isDefault: boolean;
}

export function benchPoolShapes(cores: number, asked: { workers?: number; threads?: number }, gpu = false): BenchPoolShape[] {
  const usable = Math.max(1, Math.floor(cores));
  const fallback = defaultPoolShape(usable, gpu);
  const isDefault = (shape: PoolShape) => shape.workers === fallback.workers && shape.threadsPerWorker === fallback.threadsPerWorker;
  if (asked.workers !== undefined || asked.threads !== undefined) {
    // The one not given shares out the cores the given one leaves.
    const workers = asked.workers ?? Math.max(1, Math.floor(usable / asked.threads!));
    const threadsPerWorker = asked.threads ?? Math.max(1, Math.floor(usable / workers));
    return [{ workers, threadsPerWorker, isDefault: isDefault({ workers, threadsPerWorker }) }];
  }
  const shapes: PoolShape[] = gpu
    ? GPU_WORKER_COUNTS.map((workers) => ({ workers, threadsPerWorker: Math.max(1, Math.floor(usable / workers)) }))
    : [{ workers: 1, threadsPerWorker: usable }, { workers: usable, threadsPerWorker: 1 }, fallback];
  const unique = shapes.filter((s, i) => shapes.findIndex((o) => o.workers === s.workers && o.threadsPerWorker === s.threadsPerWorker) === i);
  return unique.map((shape) => ({ ...shape, isDefault: isDefault(shape) }));
}
