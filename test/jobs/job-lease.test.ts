// A chunk's lease (src/jobs/job-lease.ts) ties its work to the runner's stop signal, which lives as
// long as the process: each lease must let go of that signal when it stops, or every chunk ever run
// stays reachable from it (found by the adversarial suite's heap snapshots).
import { getEventListeners } from 'node:events';

import t from 'tap';

import { JobLease } from '../../src/jobs/job-lease.js';
import type { JobStore } from '../../src/store/job-store.js';

// The store boundary: only heartbeat is called (the SQLite store's heartbeat is tested in test/store).
const heldLease = { heartbeat: async () => true } as unknown as JobStore;
const clock = () => new Date();

t.test('stopped leases leave no listener on the runner signal', async (t) => {
  const runner = new AbortController();
  for (let i = 0; i < 50; i++) new JobLease(heldLease, `job_${i}`, 'w', 60_000, clock, runner.signal).stop();
  t.equal(getEventListeners(runner.signal, 'abort').length, 0);
});

t.test('a running lease still follows the runner signal', async (t) => {
  const runner = new AbortController();
  const lease = new JobLease(heldLease, 'job', 'w', 60_000, clock, runner.signal);
  t.equal(getEventListeners(runner.signal, 'abort').length, 1);
  runner.abort(new Error('shutting down'));
  t.ok(lease.signal.aborted, 'the chunk is aborted with the runner');
  lease.stop();
});

t.test('a lost lease aborts the chunk', async (t) => {
  const lost = { heartbeat: async () => false } as unknown as JobStore;
  const lease = new JobLease(lost, 'job', 'w', 150, clock, new AbortController().signal);
  // The renewal timer is unref'd (it never holds a process open): keep this one alive while waiting.
  const keepAlive = setTimeout(() => {}, 5_000);
  await new Promise((resolve) => lease.signal.addEventListener('abort', resolve, { once: true }));
  clearTimeout(keepAlive);
  t.match(String(lease.signal.reason), /lease lost/);
  lease.stop();
});
