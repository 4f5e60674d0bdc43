// The engine's scheduler (src/engine/work-scheduler.ts) on its own: which waiting call a free worker
// takes (class, then tenant in turn, then request in turn), that it never leaves a worker idle while
// a call waits, its bounds, and calls withdrawn while they wait. Calls here are promises the test
// settles by hand, so the order is the scheduler's alone. (The engine's use of it, with real
// workers, is in engine-scheduling.test.ts.)
import t from 'tap';

import type { EngineWork, WorkClass } from '../../src/domain/work-classes.js';
import { EngineError } from '../../src/engine/engine-errors.js';
import { WorkScheduler } from '../../src/engine/work-scheduler.js';

/** A scheduler whose calls are held open until the test ends them, recording the order they start in. */
function harness(slots: number, maxQueue = 100, urgentSlots = 0) {
  let now = 0;
  const scheduler = new WorkScheduler(slots, maxQueue, { urgentSlots, clock: () => now });
  const started: string[] = [];
  /** Holds and resumes, in order ("hold job-1", "resume job-1"). */
  const holds: string[] = [];
  const ends = new Map<string, () => void>();
  const submit = (name: string, work: EngineWork | undefined, signal?: AbortSignal) =>
    scheduler.schedule(
      work,
      () =>
        new Promise<string>((resolve) => {
          started.push(name);
          ends.set(name, () => resolve(name));
        }),
      signal,
      { hold: () => holds.push(`hold ${name}`), resume: () => holds.push(`resume ${name}`) },
    );
  const end = async (name: string) => {
    const finish = ends.get(name);
    if (!finish) throw new Error(`${name} has not started`);
    finish();
    // The scheduler hands the freed worker on once the call's promise has settled.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { scheduler, started, holds, submit, end, advance: (ms: number) => (now += ms) };
}

const work = (workClass: WorkClass, tenant: string, request: string): EngineWork => ({ workClass, tenant, request });

t.test('a free worker takes the most urgent class first, whatever the order of arrival', async (t) => {
  const h = harness(1);
  void h.submit('running', work('batch', 'a', 'job-1'));
  void h.submit('batch', work('batch', 'a', 'job-2'));
  void h.submit('inline', work('interactive', 'b', 'req-1'));
  void h.submit('partial', work('realtime_partial', 'c', 'session-1'));
  void h.submit('final', work('realtime_final', 'c', 'session-1'));
  t.same(h.started, ['running']);
  for (const name of ['running', 'final', 'partial', 'inline']) await h.end(name);
  t.same(h.started, ['running', 'final', 'partial', 'inline', 'batch']);
});

t.test("inside a class, tenants take turns, then each tenant's requests take turns", async (t) => {
  const h = harness(1);
  void h.submit('first', work('batch', 'x', 'x-0'));
  // Tenant a has two requests of three windows each; tenant b one request of two windows.
  for (const w of [1, 2, 3]) void h.submit(`a1-${w}`, work('batch', 'a', 'a1'));
  for (const w of [1, 2, 3]) void h.submit(`a2-${w}`, work('batch', 'a', 'a2'));
  for (const w of [1, 2]) void h.submit(`b1-${w}`, work('batch', 'b', 'b1'));
  let last = 'first';
  while (h.started.length < 9) {
    await h.end(last);
    last = h.started[h.started.length - 1];
  }
  t.same(h.started, ['first', 'a1-1', 'b1-1', 'a2-1', 'b1-2', 'a1-2', 'a2-2', 'a1-3', 'a2-3']);
});

t.test("one request's windows use every free worker, and a request arriving later waits at most for one call to end", async (t) => {
  const h = harness(2);
  for (const w of [1, 2, 3, 4, 5, 6]) void h.submit(`long-${w}`, work('batch', 'a', 'job'));
  t.same(h.started, ['long-1', 'long-2'], 'both workers took the one recording');
  void h.submit('urgent', work('interactive', 'b', 'req'));
  await h.end('long-1');
  t.same(h.started, ['long-1', 'long-2', 'urgent'], 'the next worker to free up took the urgent call');
  await h.end('long-2');
  t.same(h.started.at(-1), 'long-3');
});

t.test('with urgent workers, urgent calls hold running batch calls instead of waiting, and held calls go on before new batch work', async (t) => {
  const h = harness(2, 100, 2);
  void h.submit('job-1', work('batch', 'a', 'j1'));
  void h.submit('job-2', work('batch', 'a', 'j1'));
  void h.submit('job-3', work('batch', 'a', 'j1'));
  t.same(h.started, ['job-1', 'job-2']);
  void h.submit('final', work('realtime_final', 'b', 's'));
  t.same(h.started, ['job-1', 'job-2', 'final'], 'the urgent call started at once');
  t.same(h.holds, ['hold job-1'], 'one batch call was held for it');
  t.equal(h.scheduler.held, 1);
  void h.submit('inline', work('interactive', 'c', 'r'));
  t.same(h.holds, ['hold job-1', 'hold job-2'], 'the other batch call too');
  t.equal(h.scheduler.active, 4, 'four calls on workers');
  void h.submit('partial', work('realtime_partial', 'b', 's'));
  t.same(h.started, ['job-1', 'job-2', 'final', 'inline'], 'no worker left: the partial waits');
  await h.end('final');
  t.same(h.started.at(-1), 'partial', 'an urgent call waiting takes the freed slot before a held one resumes');
  await h.end('partial');
  t.same(h.holds.at(-1), 'resume job-1', 'then the held call resumes, before the waiting batch call starts');
  t.notOk(h.started.includes('job-3'));
  await h.end('inline');
  t.same(h.holds.at(-1), 'resume job-2');
  t.equal(h.scheduler.held, 0);
  await h.end('job-1');
  t.same(h.started.at(-1), 'job-3');
  t.equal(h.scheduler.holdsMade, 2);
});

t.test('batch work never holds batch work, and without urgent workers nothing is held', async (t) => {
  const h = harness(1, 100, 1);
  void h.submit('job-1', work('batch', 'a', 'j1'));
  void h.submit('job-2', work('batch', 'b', 'j2'));
  t.same(h.started, ['job-1']);
  t.same(h.holds, []);
  const plain = harness(1, 100, 0);
  void plain.submit('job', work('batch', 'a', 'j'));
  void plain.submit('final', work('realtime_final', 'b', 's'));
  t.same(plain.started, ['job']);
  t.same(plain.holds, []);
});

t.test('work-conserving: waiting batch work takes a worker even while urgent work runs', async (t) => {
  const h = harness(2);
  void h.submit('final', work('realtime_final', 'a', 's'));
  void h.submit('job', work('batch', 'b', 'j'));
  t.same(h.started, ['final', 'job']);
  t.equal(h.scheduler.active, 2);
});

t.test('each class holds at most maxQueue waiting requests; a waiting request may add calls', async (t) => {
  const h = harness(1, 2);
  void h.submit('running', work('batch', 'a', 'job-0'));
  void h.submit('j1', work('batch', 'a', 'job-1'));
  void h.submit('j2', work('batch', 'b', 'job-2'));
  t.notOk(h.scheduler.hasRoomFor('batch'));
  await t.rejects(h.submit('j3', work('batch', 'c', 'job-3')), { code: 'queue_full' });
  void h.submit('j1-b', work('batch', 'a', 'job-1'));
  t.equal(h.scheduler.stats().batch.queued, 3, "job-1's second window was admitted with it");
  t.ok(h.scheduler.hasRoomFor('interactive'), 'another class has its own room');
  void h.submit('inline', work('interactive', 'c', 'req'));
  t.equal(h.scheduler.stats().interactive.waitingRequests, 1);
  // Untagged calls are a request each.
  const untagged = harness(1, 1);
  void untagged.submit('u0', undefined);
  void untagged.submit('u1', undefined);
  const third = untagged.submit('u2', undefined);
  await t.rejects(third, EngineError);
});

t.test('a call withdrawn while it waits never starts, and frees its place', async (t) => {
  const h = harness(1, 1);
  void h.submit('running', work('batch', 'a', 'job-0'));
  const abort = new AbortController();
  const waiting = h.submit('gone', work('batch', 'b', 'job-1'), abort.signal);
  abort.abort();
  await t.rejects(waiting, { name: 'AbortError' });
  t.equal(h.scheduler.queued, 0);
  t.ok(h.scheduler.hasRoomFor('batch'));
  void h.submit('next', work('batch', 'c', 'job-2'));
  await h.end('running');
  t.same(h.started, ['running', 'next']);
  const already = new AbortController();
  already.abort();
  await t.rejects(h.submit('never', undefined, already.signal), { name: 'AbortError' });
});

t.test('stats: queue depth, waits and the oldest wait per class; drained once nothing waits or runs', async (t) => {
  const h = harness(1);
  const first = h.submit('running', work('batch', 'a', 'job-0'));
  const second = h.submit('waiting', work('interactive', 'b', 'req'));
  h.advance(250);
  let stats = h.scheduler.stats();
  t.equal(stats.interactive.queued, 1);
  t.equal(stats.interactive.oldestWaitSeconds, 0.25);
  t.equal(stats.batch.dispatched, 1);
  const drained = h.scheduler.drained();
  let isDrained = false;
  void drained.then(() => (isDrained = true));
  await h.end('running');
  stats = h.scheduler.stats();
  t.equal(stats.interactive.queued, 0);
  t.equal(stats.interactive.dispatched, 1);
  t.equal(stats.interactive.waitSeconds, 0.25);
  t.equal(stats.interactive.oldestWaitSeconds, 0);
  t.notOk(isDrained, 'a call still runs');
  await h.end('waiting');
  await drained;
  t.equal(await first, 'running');
  t.equal(await second, 'waiting');
});

t.test('a call whose start throws rejects, and its worker goes to the next call', async (t) => {
  const scheduler = new WorkScheduler(1, 10);
  t.equal(scheduler.held, 0);
  let release!: () => void;
  const running = scheduler.schedule(undefined, () => new Promise<void>((resolve) => (release = resolve)));
  const failing = scheduler.schedule(undefined, () => {
    throw new Error('cannot start');
  });
  const after = scheduler.schedule(undefined, async () => 'after');
  release();
  await running;
  await t.rejects(failing, { message: 'cannot start' });
  t.equal(await after, 'after');
  t.equal(scheduler.active, 0);
});
