// The billing desk (src/billing/usage-billing.ts) on a real SQLite database (openStores in a temp
// data folder) with an injected clock: terms resolved from plan defaults, plan overrides and key
// overrides; requireAllowance's refusals and when they lift; metering once per unit of work; the
// monthly rollover; status().
import t, { type Test } from 'tap';

import { BillingBlockedError } from '../../src/billing/billing-errors.js';
import { billingPeriodNamed } from '../../src/billing/billing-period.js';
import { DEFAULT_PLAN_TERMS } from '../../src/billing/billing-terms.js';
import { type BilledKey, UsageBilling, type WorkDone } from '../../src/billing/usage-billing.js';
import { type UsagePool, type UsageRoute } from '../../src/domain/usage-routes.js';
import type { CreateKeyOptions } from '../../src/store/key-store.js';
import { openStores } from '../../src/store/open-stores.js';
import { NO_SAFETY_EVENTS } from '../../src/store/usage-record.js';
import { failureOf } from '../store/contract/refusal.js';

const HOUR = 3_600_000;
const MAY_20 = Date.parse('2031-05-20T12:00:00.000Z');
const JUNE_1 = Date.parse('2031-06-01T00:00:00.000Z');

async function desk(t: Test) {
  const stores = await openStores({ instanceId: 'billing-test', dataDir: t.testdir(), databaseUrl: null, webhookMasterKey: () => Buffer.alloc(32, 7) });
  t.teardown(() => stores.close());
  const clock = { now: MAY_20 };
  const billing = new UsageBilling(stores.usage, stores.billing, () => clock.now);
  const key = async (options: CreateKeyOptions): Promise<BilledKey> => (await stores.keys.create(options)).record;
  let serial = 0;
  const work = (route: UsageRoute, audioMs: number, fields: Partial<WorkDone> = {}): WorkDone => ({
    eventKey: `${route}:w${(serial += 1)}`,
    route,
    model: 'base',
    languageFamily: 'en',
    diarization: false,
    vocabulary: false,
    patterns: false,
    audioMs,
    safety: NO_SAFETY_EVENTS,
    ...fields,
  });
  return { stores, clock, billing, key, work };
}

/** What requireAllowance refused with (the error's fields), or null when it accepted. */
async function refusal(billing: UsageBilling, key: BilledKey, route: UsageRoute, estimateMs?: number) {
  const error = await failureOf(() => billing.requireAllowance(key, route, estimateMs));
  if (error === undefined) return null;
  if (!(error instanceof BillingBlockedError)) throw error;
  return { reason: error.reason, pool: error.pool, resetsAtMs: error.resetsAtMs };
}

const blocked = (reason: string, pool: UsagePool, resetsAtMs: number | null) => ({ reason, pool, resetsAtMs });

t.test("terms: the plan's built-in terms, then the operator's plan overrides, then the key's own", async (t) => {
  const { stores, billing, key, work } = await desk(t);
  t.strictSame(
    DEFAULT_PLAN_TERMS.payg,
    {
      batchIncludedMs: 25 * HOUR,
      realtimeIncludedMs: 25 * HOUR,
      batchPriceMicros: 300_000,
      realtimePriceMicros: 450_000,
      spendCapMicros: null,
      realtimeSessionMaxMs: 4 * HOUR,
    },
    "the contract's figures, and sessions of up to 4 hours",
  );
  t.strictSame(DEFAULT_PLAN_TERMS.builder, {
    batchIncludedMs: 25 * HOUR,
    realtimeIncludedMs: 25 * HOUR,
    batchPriceMicros: null,
    realtimePriceMicros: null,
    spendCapMicros: null,
    realtimeSessionMaxMs: 2 * HOUR,
  });
  t.strictSame(DEFAULT_PLAN_TERMS.enterprise, {
    batchIncludedMs: null,
    realtimeIncludedMs: null,
    batchPriceMicros: null,
    realtimePriceMicros: null,
    spendCapMicros: null,
    realtimeSessionMaxMs: null,
  });
  const builder = await key({ plan: 'builder' });
  const payg = await key({ plan: 'payg' });
  const payg2 = await key({ plan: 'payg' });
  const enterprise = await key({ plan: 'enterprise' });
  for (const k of [builder, payg, payg2, enterprise]) t.strictSame(await billing.terms(k), DEFAULT_PLAN_TERMS[k.plan], `${k.plan}: the built-in terms`);

  await stores.billing.updatePlan('payg', { batchIncludedMs: 1_000, spendCapMicros: 10 });
  await stores.billing.updatePlan('enterprise', { realtimeIncludedMs: 7 * HOUR, realtimePriceMicros: 200_000 });
  await stores.billing.updateKey(payg2.id, { overrides: { spendCapMicros: null, realtimePriceMicros: 1 } });
  t.strictSame(await billing.terms(payg), { ...DEFAULT_PLAN_TERMS.payg, batchIncludedMs: 1_000, spendCapMicros: 10 }, 'the plan override applies at once');
  t.strictSame(
    await billing.terms(payg2),
    { ...DEFAULT_PLAN_TERMS.payg, batchIncludedMs: 1_000, spendCapMicros: null, realtimePriceMicros: 1 },
    "the key's override wins, null included",
  );
  t.strictSame(await billing.terms(builder), DEFAULT_PLAN_TERMS.builder, 'another plan is untouched');
  t.strictSame(await billing.terms(enterprise), { ...DEFAULT_PLAN_TERMS.enterprise, realtimeIncludedMs: 7 * HOUR, realtimePriceMicros: 200_000 });
  t.strictSame((await billing.status(payg2)).terms, await billing.terms(payg2), 'status reports the same terms');

  const batch = await billing.meteredWork(payg2, work('job', 5_000));
  t.strictSame(batch.terms, { includedMs: 1_000, priceMicrosPerHour: 300_000 }, 'batch work is charged under the batch terms');
  const realtime = await billing.meteredWork(payg2, work('realtime', 5_000));
  t.strictSame(realtime.terms, { includedMs: 25 * HOUR, priceMicrosPerHour: 1 }, 'realtime work under the realtime terms');
  await stores.billing.resetPlan('payg');
  t.strictSame(await billing.terms(payg), DEFAULT_PLAN_TERMS.payg, 'back to the built-in terms');
});

t.test('requireAllowance refuses with the reason, the pool and when the block lifts', async (t) => {
  const { stores, billing, key, work } = await desk(t);

  t.test("allowance: a builder tenant's 25 batch hours, shared by its keys; realtime apart", async (t) => {
    const a = await key({ plan: 'builder', tenant: 'free' });
    const b = await key({ plan: 'builder', tenant: 'free' });
    const elsewhere = await key({ plan: 'builder', tenant: 'elsewhere' });
    t.equal(await refusal(billing, a, 'job', 25 * HOUR), null, 'the estimate exactly fills it');
    t.strictSame(await refusal(billing, a, 'job', 25 * HOUR + 1), blocked('allowance', 'batch', JUNE_1), 'the estimate would cross it');
    t.equal(await billing.meter(a, work('job', 24 * HOUR)), true);
    t.equal(await refusal(billing, b, 'inline', HOUR), null, 'the last hour');
    t.equal(await billing.meter(b, work('inline', HOUR)), true);
    for (const route of ['job', 'inline', 'translation'] as const) {
      t.strictSame(await refusal(billing, a, route), blocked('allowance', 'batch', JUNE_1), `${route}: used up, refused until the next period`);
    }
    t.strictSame(await refusal(billing, b, 'job'), blocked('allowance', 'batch', JUNE_1), "the tenant's other key too");
    t.equal(await refusal(billing, elsewhere, 'job'), null, 'another tenant has its own allowance');
    t.equal(await refusal(billing, a, 'realtime'), null, 'the realtime pool is untouched');
    t.strictSame(await refusal(billing, a, 'realtime', 25 * HOUR + 1), blocked('allowance', 'realtime', JUNE_1));
    const error = await failureOf(() => billing.requireAllowance(a, 'job'));
    t.type(error, BillingBlockedError);
    t.match((error as Error).message, /batch allowance is used.*until 2031-06-01T00:00:00\.000Z/);
  });

  t.test('paused: refused in both pools whatever stands, until an operator acts', async (t) => {
    const k = await key({ plan: 'enterprise' });
    const paused = await stores.keys.update(k.id, { billingState: 'paused' });
    t.equal(await refusal(billing, k, 'job'), null, 'unlimited while active');
    t.strictSame(await refusal(billing, paused, 'job'), blocked('paused', 'batch', null));
    t.strictSame(await refusal(billing, paused, 'realtime'), blocked('paused', 'realtime', null));
    const error = await failureOf(() => billing.requireAllowance(paused, 'job'));
    t.notMatch((error as Error).message, /until/, 'no time it lifts by itself');
  });

  t.test('spend cap: reached, or passed by the estimate; lifts with the period', async (t) => {
    const k = await key({ plan: 'payg', tenant: 'capped' });
    await stores.billing.updateKey(k.id, { overrides: { batchIncludedMs: 0, spendCapMicros: 300_000 } });
    t.equal(await refusal(billing, k, 'job', HOUR), null, 'an hour costs 300 000: exactly the cap');
    t.strictSame(await refusal(billing, k, 'job', HOUR + 1_000), blocked('spend_cap', 'batch', JUNE_1), 'more would pass it');
    t.equal(await billing.meter(k, work('job', HOUR)), true);
    t.equal((await billing.status(k)).standing.keyPeriodCostMicros, 300_000);
    t.strictSame(await refusal(billing, k, 'job'), blocked('spend_cap', 'batch', JUNE_1), 'reached');
    t.equal(await refusal(billing, k, 'realtime'), null, 'realtime within its allowance costs nothing');
    await stores.billing.updateKey(k.id, { overrides: { spendCapMicros: 600_000 } });
    t.equal(await refusal(billing, k, 'job'), null, 'a raised cap applies to the next request');
  });

  t.test('credit: used, or too little for the estimate; needs a top-up', async (t) => {
    const k = await key({ plan: 'payg', tenant: 'prepaid' });
    await stores.billing.updateKey(k.id, { overrides: { batchIncludedMs: 0 }, addCreditMicros: 150_000 });
    t.strictSame(await refusal(billing, k, 'job', HOUR), blocked('credit', 'batch', null), 'an hour costs 300 000, 150 000 left');
    t.equal(await refusal(billing, k, 'job', HOUR / 2), null, 'half an hour: exactly what is left');
    t.equal(await billing.meter(k, work('job', HOUR / 2)), true);
    t.strictSame(await refusal(billing, k, 'job'), blocked('credit', 'batch', null), 'used');
    const error = await failureOf(() => billing.requireAllowance(k, 'job'));
    t.notMatch((error as Error).message, /150|300|until/, 'the message names the limit, not the figures');
    await stores.billing.updateKey(k.id, { addCreditMicros: 300_000 });
    t.equal(await refusal(billing, k, 'job', HOUR), null, 'topped up: an hour fits');
    t.strictSame(await refusal(billing, k, 'job', HOUR + 1_000), blocked('credit', 'batch', null));
  });
});

t.test('meter records a unit of work once; the event carries the clock, the period and the key', async (t) => {
  const { stores, clock, billing, key, work } = await desk(t);
  const k = await key({ plan: 'payg', tenant: 'acme' });
  const done = work('job', 90_000, { eventKey: 'job:j1', diarization: true, languageFamily: 'fr', model: 'small' });
  const metered = await billing.meteredWork(k, done);
  t.strictSame(metered.event, { ...done, tenant: 'acme', keyId: k.id, period: '2031-05', atMs: MAY_20 });
  t.equal(await billing.meter(k, done), true);
  t.equal(await billing.meter(k, done), false, 'the same work again');
  t.equal(await billing.meter(k, { ...done, audioMs: 5 * HOUR, route: 'inline' }), false, 'the same eventKey with other counters');
  clock.now = JUNE_1 + HOUR;
  t.equal(await billing.meter(k, done), false, 'in the next period too');
  clock.now = MAY_20;
  const status = await billing.status(k);
  t.strictSame(status.standing.tenantUsedMs, { batch: 90_000, realtime: 0 }, 'counted once');
  const lines = await stores.usage.report({ period: '2031-05', tenant: 'acme' });
  t.equal(lines.length, 1);
  t.match(lines[0], { keyId: k.id, route: 'job', model: 'small', languageFamily: 'fr', units: 1, audioMs: 90_000, diarizationMs: 90_000 });

  clock.now = JUNE_1;
  t.equal(await billing.meter(k, work('realtime', 1_000, { eventKey: 'realtime:s1:0' })), true);
  t.equal((await stores.usage.report({ period: '2031-06' })).length, 1, "work done in June is June's");
});

t.test("monthly rollover: allowance and cap blocks lift at the next period's start; a credit block stays", async (t) => {
  const { stores, clock, billing, key, work } = await desk(t);
  await stores.billing.setPeriodStartDay(15);
  const JUNE_15 = Date.parse('2031-06-15T00:00:00.000Z');
  const free = await key({ plan: 'builder', tenant: 'free' });
  const capped = await key({ plan: 'payg', tenant: 'capped' });
  const prepaid = await key({ plan: 'payg', tenant: 'prepaid' });
  await stores.billing.updateKey(capped.id, { overrides: { batchIncludedMs: 0, spendCapMicros: 300_000 } });
  await stores.billing.updateKey(prepaid.id, { overrides: { batchIncludedMs: 0 }, addCreditMicros: 100_000 });

  t.equal((await billing.period()).label, '2031-05', 'May 20 with periods starting on the 15th');
  t.equal(await billing.meter(free, work('job', 25 * HOUR)), true);
  t.equal(await billing.meter(capped, work('job', HOUR)), true);
  t.equal(await billing.meter(prepaid, work('job', HOUR)), true, 'an event already accepted is recorded in full, overdrawing the credit');
  t.strictSame(await refusal(billing, free, 'job'), blocked('allowance', 'batch', JUNE_15), 'lifts on the 15th');
  t.strictSame(await refusal(billing, capped, 'job'), blocked('spend_cap', 'batch', JUNE_15));
  t.strictSame(await refusal(billing, prepaid, 'job'), blocked('credit', 'batch', null));

  clock.now = JUNE_1;
  t.strictSame(await refusal(billing, free, 'job'), blocked('allowance', 'batch', JUNE_15), 'the 1st is no boundary here');
  clock.now = JUNE_15 - 1;
  t.strictSame(await refusal(billing, free, 'job'), blocked('allowance', 'batch', JUNE_15), 'a millisecond before');
  t.strictSame(await refusal(billing, capped, 'job'), blocked('spend_cap', 'batch', JUNE_15));

  clock.now = JUNE_15;
  t.equal((await billing.period()).label, '2031-06');
  t.equal(await refusal(billing, free, 'job'), null, 'a fresh allowance');
  t.equal(await refusal(billing, capped, 'job'), null, 'a fresh spend cap');
  t.strictSame(await refusal(billing, prepaid, 'job'), blocked('credit', 'batch', null), 'credit is drawn across periods: still used');
  const status = await billing.status(free);
  t.strictSame(status.standing.tenantUsedMs, { batch: 0, realtime: 0 });
  t.strictSame(status.blocked, { batch: null, realtime: null });
  t.equal(status.period.endMs, Date.parse('2031-07-15T00:00:00.000Z'));
  t.equal(await billing.meter(free, work('job', 25 * HOUR)), true);
  t.strictSame(
    await refusal(billing, free, 'job'),
    blocked('allowance', 'batch', Date.parse('2031-07-15T00:00:00.000Z')),
    'used up again: lifts a period later',
  );
});

t.test('status: the period, terms, standing, credit left, and per pool what blocks and until when', async (t) => {
  const { stores, billing, key, work } = await desk(t);
  const may = billingPeriodNamed('2031-05', 1)!;
  const free = await key({ plan: 'builder', tenant: 'free' });
  t.strictSame(await billing.status(free), {
    period: may,
    terms: DEFAULT_PLAN_TERMS.builder,
    standing: { tenantUsedMs: { batch: 0, realtime: 0 }, keyPeriodCostMicros: 0, keyLifetimeCostMicros: 0 },
    creditGrantedMicros: null,
    creditLeftMicros: null,
    blocked: { batch: null, realtime: null },
    resetsAtMs: { batch: null, realtime: null },
    nextRefusal: {
      batch: { afterMs: 25 * HOUR, reason: 'allowance', resetsAtMs: JUNE_1 },
      realtime: { afterMs: 25 * HOUR, reason: 'allowance', resetsAtMs: JUNE_1 },
    },
  });
  await billing.meter(free, work('realtime', 25 * HOUR));
  await billing.meter(free, work('job', 10 * HOUR));
  const used = await billing.status(free);
  t.strictSame(used.blocked, { batch: null, realtime: 'allowance' });
  t.strictSame(used.resetsAtMs, { batch: null, realtime: JUNE_1 });
  t.strictSame(
    used.nextRefusal,
    { batch: { afterMs: 15 * HOUR, reason: 'allowance', resetsAtMs: JUNE_1 }, realtime: { afterMs: 0, reason: 'allowance', resetsAtMs: JUNE_1 } },
    'batch beyond 15 h more is refused, realtime already: both until the next period',
  );
  t.strictSame(
    (await billing.status(free, billingPeriodNamed('2031-04', 1)!)).blocked,
    { batch: null, realtime: null },
    'an explicit period: April stood clear',
  );
  t.equal((await billing.status(free, billingPeriodNamed('2031-04', 1)!)).period.label, '2031-04');

  const prepaid = await key({ plan: 'payg', tenant: 'prepaid' });
  await stores.billing.updateKey(prepaid.id, { addCreditMicros: 1_000_000 });
  await billing.meter(prepaid, work('job', 27 * HOUR));
  let status = await billing.status(prepaid);
  t.equal(status.creditGrantedMicros, 1_000_000);
  t.equal(status.standing.keyLifetimeCostMicros, 600_000, 'two hours beyond the 25 at 0.30');
  t.equal(status.creditLeftMicros, 400_000);
  t.strictSame(status.blocked, { batch: null, realtime: null });
  await billing.meter(prepaid, work('realtime', 26 * HOUR));
  status = await billing.status(prepaid);
  t.equal(status.creditLeftMicros, -50_000, 'an hour of realtime at 0.45 overdraws it');
  t.strictSame(status.blocked, { batch: 'credit', realtime: 'credit' });
  t.strictSame(status.resetsAtMs, { batch: JUNE_1, realtime: JUNE_1 }, "a credit block lifts with the next period's free hours");
  await stores.billing.updateKey(prepaid.id, { overrides: { batchIncludedMs: 0 } });
  t.strictSame((await billing.status(prepaid)).resetsAtMs, { batch: null, realtime: JUNE_1 }, 'without an allowance only a top-up lifts it');

  const paused = await stores.keys.update((await key({ plan: 'payg' })).id, { billingState: 'paused' });
  status = await billing.status(paused);
  t.strictSame(status.blocked, { batch: 'paused', realtime: 'paused' });
  t.strictSame(status.resetsAtMs, { batch: null, realtime: null });

  const capped = await key({ plan: 'payg', tenant: 'capped' });
  await stores.billing.updateKey(capped.id, { overrides: { realtimeIncludedMs: 0, spendCapMicros: 450_000 } });
  await billing.meter(capped, work('realtime', HOUR));
  status = await billing.status(capped);
  t.strictSame(status.blocked, { batch: null, realtime: 'spend_cap' }, 'the cap is reached, but batch work within its allowance costs nothing');
  t.strictSame(status.resetsAtMs, { batch: null, realtime: JUNE_1 });
  t.strictSame(
    status.nextRefusal.batch,
    { afterMs: 25 * HOUR, reason: 'spend_cap', resetsAtMs: JUNE_1 },
    'batch beyond its allowance would cost, and the cap is reached',
  );
  const unlimited = await key({ plan: 'enterprise', tenant: 'unlimited' });
  await stores.billing.updateKey(unlimited.id, { overrides: { batchIncludedMs: null } });
  t.equal((await billing.status(unlimited)).nextRefusal.batch, null, 'an unlimited allowance: nothing refuses batch work');
  t.strictSame((await billing.status(paused)).nextRefusal.batch, { afterMs: 0, reason: 'paused', resetsAtMs: null }, 'paused: an operator must act');
  t.equal(status.creditLeftMicros, null, 'no prepaid credit');
});
