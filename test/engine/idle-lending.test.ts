// Lending idle slots (src/engine/work-scheduler.ts, recent-requests.ts): a call that starts alone on a
// quiet engine computes with the idle workers' threads; it never takes slots another call could use.
// Calls here are promises the test settles by hand; the engine's use of it, with real workers and
// whisper.cpp's threads, is in engine-scheduling.test.ts.
import t from 'tap';

import type { EngineWork, WorkClass } from '../../src/domain/work-classes.js';
import { RecentRequests, REQUEST_QUIET_MS } from '../../src/engine/recent-requests.js';
import { WorkScheduler } from '../../src/engine/work-scheduler.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

function harness(slots: number, lendTo: WorkClass[] = ['realtime_final', 'interactive']) {
  let now = 10_000;
  const clock = () => now;
  const scheduler = new WorkScheduler(slots, 100, { lendTo, recent: new RecentRequests(clock), clock });
  /** Each call's share of slots, by name, once it started. */
  const shares = new Map<string, number>();
  const ends = new Map<string, () => void>();
  const submit = (name: string, work: EngineWork | undefined) =>
    scheduler.schedule(
      work,
      (share) =>
        new Promise<string>((resolve) => {
          shares.set(name, share);
          ends.set(name, () => resolve(name));
        }),
    );
  const end = async (name: string) => {
    ends.get(name)!();
    await turn();
    await turn();
  };
  return { scheduler, shares, submit, end, advance: (ms: number) => (now += ms) };
}

const work = (workClass: WorkClass, request: string, tenant = 'a'): EngineWork => ({ workClass, tenant, request });

t.test('a call that starts alone takes every idle slot; what arrives meanwhile waits for it', async (t) => {
  const h = harness(4);
  void h.submit('alone', work('interactive', 'req-1'));
  await turn();
  t.equal(h.shares.get('alone'), 4);
  t.equal(h.scheduler.slotsLent, 3);
  h.advance(REQUEST_QUIET_MS + 1);
  void h.submit('next', work('realtime_final', 'session-1'));
  await turn();
  t.notOk(h.shares.has('next'), 'the lent slots compute until the lent call ends');
  await h.end('alone');
  t.equal(h.shares.get('next'), 1, 'it started while another request was at work: no lending');
});

t.test("a request's windows scheduled in one turn share the slots out instead", async (t) => {
  const h = harness(2);
  for (const w of [1, 2, 3]) void h.submit(`w${w}`, work('interactive', 'req-1'));
  await turn();
  t.same([h.shares.get('w1'), h.shares.get('w2')], [1, 1]);
  t.notOk(h.shares.has('w3'));
  await h.end('w1');
  t.equal(h.shares.get('w3'), 1, 'w2 still computes: no slot is idle');
  t.equal(h.scheduler.slotsLent, 0);
});

t.test('batch calls, partials and classes not named are never lent to', async (t) => {
  t.throws(() => new WorkScheduler(2, 10, { lendTo: ['batch'] }), RangeError);
  const h = harness(2);
  void h.submit('job', work('batch', 'job-1'));
  await turn();
  t.equal(h.shares.get('job'), 1);
  await h.end('job');
  h.advance(REQUEST_QUIET_MS + 1);
  void h.submit('partial', work('realtime_partial', 'session-1'));
  await turn();
  t.equal(h.shares.get('partial'), 1);
  const none = harness(2, []);
  void none.submit('inline', work('interactive', 'req-1'));
  await turn();
  t.equal(none.shares.get('inline'), 1);
});

t.test('another request at work lately (a streaming session, a client between calls) keeps its slot', async (t) => {
  const h = harness(2);
  void h.submit('vad', work('realtime_final', 'session-1'));
  await turn();
  await h.end('vad');
  // session-1's call ended just now: it is at work, and its next call would find no slot.
  h.advance(REQUEST_QUIET_MS - 50);
  void h.submit('inline', work('interactive', 'req-1'));
  await turn();
  t.equal(h.shares.get('inline'), 1);
  await h.end('inline');
  // Quiet for longer than that: the next call of req-1's neighbour is lent the idle slot.
  h.advance(REQUEST_QUIET_MS + 1);
  void h.submit('final', work('realtime_final', 'session-2'));
  await turn();
  t.equal(h.shares.get('final'), 2);
  await h.end('final');
  // A request's own calls never count against it (session-2's call ended just now).
  h.advance(50);
  void h.submit('s2-again', work('realtime_final', 'session-2'));
  await turn();
  t.equal(h.shares.get('s2-again'), 2);
});

t.test('untagged calls are lent where no tagged request is at work', async (t) => {
  const h = harness(2);
  void h.submit('anonymous', undefined);
  await turn();
  t.equal(h.shares.get('anonymous'), 2);
  await h.end('anonymous');
  void h.submit('tagged', work('interactive', 'req-1'));
  await turn();
  await h.end('tagged');
  void h.submit('anonymous-2', undefined);
  await turn();
  t.equal(h.shares.get('anonymous-2'), 1);
});
