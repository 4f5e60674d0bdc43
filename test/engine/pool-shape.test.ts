import t from 'tap';
import { defaultPoolShape } from '../../src/engine/pool-shape.js';

t.test('one thread per worker up to 8 cores, then more threads per worker', async (t) => {
  t.same(defaultPoolShape(1), { workers: 1, threadsPerWorker: 1 });
  t.same(defaultPoolShape(2), { workers: 2, threadsPerWorker: 1 });
  t.same(defaultPoolShape(8), { workers: 8, threadsPerWorker: 1 });
  t.same(defaultPoolShape(16), { workers: 8, threadsPerWorker: 2 });
  t.same(defaultPoolShape(0), { workers: 1, threadsPerWorker: 1 });
});
