import t from 'tap';

import { defaultPoolShape, defaultUrgentWorkers } from '../../src/engine/pool-shape.js';

t.test('one thread per worker up to 8 cores, then more threads per worker', async (t) => {
  t.same(defaultPoolShape(1), { workers: 1, threadsPerWorker: 1 });
  t.same(defaultPoolShape(2), { workers: 2, threadsPerWorker: 1 });
  t.same(defaultPoolShape(8), { workers: 8, threadsPerWorker: 1 });
  t.same(defaultPoolShape(16), { workers: 8, threadsPerWorker: 2 });
  t.same(defaultPoolShape(0), { workers: 1, threadsPerWorker: 1 });
});

t.test('on a GPU: four concurrent calls, the cores shared out among them', async (t) => {
  t.same(defaultPoolShape(16, true), { workers: 4, threadsPerWorker: 4 });
  t.same(defaultPoolShape(2, true), { workers: 4, threadsPerWorker: 1 });
});

t.test('urgent workers: one per compute slot where a held call costs nothing (single-threaded, CPU)', async (t) => {
  t.equal(defaultUrgentWorkers(2, 1, false), 2);
  t.equal(defaultUrgentWorkers(8, 2, false), 0, 'a held call with more threads would leave them spinning');
  t.equal(defaultUrgentWorkers(4, 1, true), 0, 'on a GPU a held call keeps its device memory');
});
