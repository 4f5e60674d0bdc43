// RealtimeUsage (src/application/realtime-usage.ts) against a billing desk whose answers the test
// decides and times: slices reserved ahead and metered under the same keys, audio that waits while
// the next slice is undecided and comes once it is, a refusal ending the session at the current
// slice's end, a ledger outage not cutting the session, unused slices given back, the plan's
// longest session. The real desk and ledger are tested with real sessions in realtime-open-limits.test.ts.
import t from 'tap';

import { RealtimeUsage, SLICE_SECONDS, type UsageLimit } from '../../src/application/realtime-usage.js';
import { BillingBlockedError } from '../../src/billing/billing-errors.js';
import type { BilledKey, WorkDone } from '../../src/billing/usage-billing.js';

const RATE = 100; // samples per second: a slice is 6,000 samples
const SLICE = SLICE_SECONDS * RATE;
const KEY: BilledKey = { id: 'key_1', tenant: 'acme', plan: 'payg', billingState: 'active' };

interface Ask {
  eventKey: string;
  answer(ms: number | Error): Promise<void>;
}

function desk(sessionMaxMs: number | null = null) {
  const asks: Ask[] = [];
  const metered: Array<{ eventKey: string; audioMs: number }> = [];
  const released: string[] = [];
  const billing = {
    terms: async () => ({ realtimeSessionMaxMs: sessionMaxMs }) as never,
    reserveUpTo: (_key: BilledKey, _route: string, _wanted: number, _least: number, eventKey: string) =>
      new Promise<number>((resolve, reject) => {
        asks.push({
          eventKey,
          answer: async (ms) => {
            if (typeof ms === 'number') resolve(ms);
            else reject(ms);
            await new Promise((r) => setImmediate(r));
          },
        });
      }),
    meter: async (_key: BilledKey, work: WorkDone) => (metered.push({ eventKey: work.eventKey, audioMs: work.audioMs }), true),
    release: async (eventKey: string) => void released.push(eventKey),
  };
  const limits: UsageLimit[] = [];
  let resumed = 0;
  const handlers = { limit: (l: UsageLimit) => void limits.push(l), resume: () => void resumed++, failure: () => {} };
  const open = async (firstMs: number) => {
    const opening = RealtimeUsage.open(billing, KEY, { model: 'svc-medical-1', language: 'en', diarization: false }, RATE, handlers);
    await new Promise((r) => setImmediate(r));
    await asks.shift()!.answer(firstMs);
    return opening;
  };
  /** Answers every reservation still asked for (a real ledger always answers), then closes. */
  const close = async (usage: RealtimeUsage, untranscribed = 0) => {
    const closing = usage.close(untranscribed);
    while (d.asks.length > 0) await d.asks.shift()!.answer(SLICE_SECONDS * 1000);
    await closing;
  };
  const d = { asks, metered, released, limits, resumed: () => resumed, open, close };
  return d;
}

const refusal = () => new BillingBlockedError('allowance', 'realtime', null);

t.test('the next slice is asked for halfway; audio sent ahead waits while it is undecided and comes once it is admitted', async (t) => {
  const d = desk();
  const usage = await d.open(SLICE_SECONDS * 1000);
  t.equal(usage.received(SLICE / 2 - 1), SLICE / 2 - 1);
  t.equal(d.asks.length, 0, 'not yet halfway');
  t.equal(usage.received(1), 1);
  t.equal(d.asks.length, 1, 'halfway: the next slice is asked for');
  t.match(d.asks[0].eventKey, /^realtime:rt_\w+:2$/);
  t.equal(usage.received(SLICE), SLICE / 2, 'the rest of the slice is taken; audio beyond it waits');
  t.equal(usage.received(10), 0, 'still undecided: nothing more');
  await d.asks.shift()!.answer(SLICE_SECONDS * 1000);
  t.equal(d.resumed(), 1, 'told to resume');
  t.equal(usage.received(SLICE / 2 + 10), SLICE / 2 + 10, 'the waiting audio comes into the next slice');
  await new Promise((r) => setImmediate(r));
  t.same(
    d.metered.map((m) => m.audioMs),
    [SLICE_SECONDS * 1000],
    'the full slice is metered under its reservation key',
  );
  await d.close(usage);
  t.same(d.metered.at(-1), { eventKey: d.metered[0].eventKey.replace(/:1$/, ':2'), audioMs: (SLICE / 2 + 10) * 10 });
  t.same(d.limits, []);
});

t.test('a refused next slice ends the session at the current one: the limit told once, nothing beyond admitted', async (t) => {
  const d = desk();
  const usage = await d.open(2_500); // 250 samples: what the allowance had
  t.equal(usage.received(200), 200);
  await d.asks.shift()!.answer(refusal());
  t.same(d.limits, [], 'not yet: the current slice still has room');
  t.equal(usage.received(100), 50, 'up to the end of the current slice');
  t.match(d.limits, [{ kind: 'billing', refusal: { reason: 'allowance' } }]);
  t.equal(usage.received(100), 0, 'nothing after it');
  t.equal(d.limits.length, 1);
  await d.close(usage);
  t.same(
    d.metered.map((m) => m.audioMs),
    [2_500],
  );
});

t.test('a ledger that cannot reserve does not cut the session: the audio goes on, the slice is asked for again', async (t) => {
  const d = desk();
  const usage = await d.open(SLICE_SECONDS * 1000);
  t.equal(usage.received(SLICE / 2), SLICE / 2);
  await d.asks.shift()!.answer(new Error('database down'));
  t.equal(usage.received(SLICE), SLICE, 'into the next slice regardless');
  t.match(
    d.asks.map((a) => a.eventKey),
    [/:3$/],
    'the one after it is asked for halfway as usual; the failed one not again at once',
  );
  await d.asks.shift()!.answer(SLICE_SECONDS * 1000);
  await new Promise((r) => setTimeout(r, 1_050));
  usage.received(1);
  t.match(
    d.asks.map((a) => a.eventKey),
    [/:2$/],
    'a second later, the failed one is asked for again',
  );
  await d.asks.shift()!.answer(SLICE_SECONDS * 1000);
  await d.close(usage);
  t.same(d.limits, []);
});

t.test('closing gives back a next slice not used, and the current one when no audio came into it', async (t) => {
  const d = desk();
  const usage = await d.open(SLICE_SECONDS * 1000);
  usage.received(SLICE / 2);
  await d.asks.shift()!.answer(SLICE_SECONDS * 1000);
  await d.close(usage, SLICE / 2);
  t.same(d.metered, [], 'all of it untranscribed: nothing metered');
  t.equal(d.released.length, 2, 'both slices given back');
});

t.test('what the close meters, said at once: less the untranscribed part of the current slice, never of a slice recorded when full', async (t) => {
  const d = desk();
  const usage = await d.open(SLICE_SECONDS * 1000);
  usage.received(SLICE / 2);
  await d.asks.shift()!.answer(SLICE_SECONDS * 1000);
  usage.received(SLICE / 2 + SLICE / 4);
  const closing = d.close(usage, SLICE / 2);
  t.equal(usage.meteredSamples, SLICE, 'the first slice, full before the close; none of the second');
  await closing;
  t.same(
    d.metered.map((m) => m.audioMs),
    [SLICE_SECONDS * 1000],
    'the ledger got the same',
  );

  const d2 = desk();
  const short = await d2.open(SLICE_SECONDS * 1000);
  short.received(SLICE / 4);
  const closingShort = d2.close(short, SLICE / 10);
  t.equal(short.meteredSamples, SLICE / 4 - SLICE / 10);
  await closingShort;
  t.same(
    d2.metered.map((m) => m.audioMs),
    [((SLICE / 4 - SLICE / 10) / RATE) * 1000],
  );
});

t.test("the plan's longest session: audio up to it, then the limit", async (t) => {
  const d = desk(1_500);
  const usage = await d.open(SLICE_SECONDS * 1000);
  t.equal(usage.received(100), 100);
  t.equal(usage.received(100), 50);
  t.match(d.limits, [{ kind: 'session_length', maxMs: 1_500 }]);
  t.equal(usage.received(100), 0);
  await d.close(usage);
  t.same(
    d.metered.map((m) => m.audioMs),
    [1_500],
  );
});
