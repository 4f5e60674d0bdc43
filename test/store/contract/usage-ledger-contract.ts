// The UsageLedger contract, run against every implementation (test/store/usage-ledger.test.ts):
// events recorded exactly once, charges (only what goes beyond the tenant's allowance, per pool,
// at the key's price), standings per tenant, key and period, report lines, ledgers on separate
// connections racing past an allowance without double charging, reservations (counted in decisions
// until converted or released, never once their holder is gone, admitted in turns across
// connections), and no content at rest.
import type { Test } from 'tap';

import type { JobStatus } from '../../../src/domain/job-statuses.js';
import { type UsageRoute } from '../../../src/domain/usage-routes.js';
import type { UsageLedger } from '../../../src/store/usage-ledger.js';
import {
  NO_SAFETY_EVENTS,
  type PoolTerms,
  type SafetyCounters,
  USAGE_EVENT_COLUMNS,
  type UsageEvent,
  type UsageLine,
  type UsageStanding,
} from '../../../src/store/usage-record.js';
import type { UsageReservation } from '../../../src/store/usage-reservation.js';

export interface UsageLedgerHarness {
  ledger: UsageLedger;
  /** A ledger on a connection of its own to the same database, as another process has. */
  another(): Promise<UsageLedger>;
  /** Every row of `usage_events` as the database returns it (SELECT *: column name -> value). */
  rawRows(): Promise<Record<string, unknown>[]>;
  /** The columns of `usage_events` as the database's catalogue lists them. */
  columnNames(): Promise<string[]>;
  /** Registers (alive) or removes (dead) a service instance, as the instance registry does. */
  instanceAlive(id: string, alive: boolean): Promise<void>;
  /** Creates the job row when it is missing (tenant 'acme', key 'key_k1') and sets its status, as the job store's transitions do. */
  jobStatus(id: string, status: JobStatus): Promise<void>;
  close(): Promise<void>;
}

export type MakeUsageLedger = (t: Test) => Promise<UsageLedgerHarness>;

const HOUR = 3_600_000;
const T0 = Date.parse('2031-05-10T08:00:00.000Z');
const MAY = '2031-05';
const JUNE = '2031-06';
/** One audio-hour included; 0.45 per audio-hour beyond it. */
const TERMS: PoolTerms = { includedMs: HOUR, priceMicrosPerHour: 450_000 };

/** The text columns: identifiers and categories, nothing said or uploaded. */
const TEXT_COLUMNS = ['event_key', 'tenant', 'key_id', 'period', 'route', 'pool', 'model', 'language_family'];

let serial = 0;
function event(fields: Partial<UsageEvent> & { audioMs: number }): UsageEvent {
  serial += 1;
  return {
    eventKey: `job:e${serial}`,
    tenant: 'acme',
    keyId: 'key_k1',
    period: MAY,
    atMs: T0 + serial,
    route: 'job',
    model: 'base',
    languageFamily: 'en',
    diarization: false,
    vocabulary: false,
    patterns: false,
    safety: NO_SAFETY_EVENTS,
    ...fields,
  };
}

function reservation(fields: Partial<UsageReservation> & { key: string; audioMs: number }): UsageReservation {
  return { tenant: 'acme', keyId: 'key_k1', period: MAY, pool: 'batch', holder: { instance: 'inst_a' }, atMs: T0, ...fields };
}

const safety = (vocabularyFallbacks: number, suspectInsertions: number, reviewRequired: number, unsupportedLanguage: number): SafetyCounters => ({
  vocabularyFallbacks,
  suspectInsertions,
  reviewRequired,
  unsupportedLanguage,
});

const sumOf = (lines: UsageLine[], field: 'units' | 'audioMs' | 'overageMs' | 'costMicros') => lines.reduce((total, line) => total + line[field], 0);

export function usageLedgerContract(t: Test, name: string, make: MakeUsageLedger): void {
  const open = async (t: Test): Promise<UsageLedgerHarness> => {
    const harness = await make(t);
    t.teardown(() => harness.close());
    return harness;
  };

  t.test(`${name}: UsageLedger contract`, async (t) => {
    t.test('an event is recorded exactly once: the same eventKey again changes nothing, whatever it carries', async (t) => {
      const { ledger, another } = await open(t);
      const first = event({ eventKey: 'job:once', audioMs: 2 * HOUR });
      t.equal(await ledger.record(first, TERMS), true, 'recorded');
      const standing = await ledger.standing('acme', 'key_k1', MAY);
      const report = await ledger.report({ period: MAY });
      t.strictSame(standing, { tenantUsedMs: { batch: 2 * HOUR, realtime: 0 }, keyPeriodCostMicros: 450_000, keyLifetimeCostMicros: 450_000 });
      t.equal(report.length, 1);

      t.equal(await ledger.record(first, TERMS), false, 'the same event again');
      const retried = { ...first, audioMs: 9 * HOUR, route: 'inline' as const, atMs: T0 + 999 };
      t.equal(await ledger.record(retried, { includedMs: 0, priceMicrosPerHour: 9_000_000 }), false, 'other audio and terms under the same key');
      t.equal(await (await another()).record(first, TERMS), false, 'from another connection too');
      t.equal(await ledger.record({ ...first, tenant: 'other', keyId: 'key_k9' }, TERMS), false, 'the key is unique across tenants');
      t.strictSame(await ledger.standing('acme', 'key_k1', MAY), standing, 'the standing is unchanged');
      t.strictSame(await ledger.report({ period: MAY }), report, 'the report is unchanged');
      t.strictSame(await ledger.standing('other', 'key_k9', MAY), {
        tenantUsedMs: { batch: 0, realtime: 0 },
        keyPeriodCostMicros: 0,
        keyLifetimeCostMicros: 0,
      });
    });

    t.test("charges: only the part beyond the tenant's allowance, per pool, per period; standings per tenant and key", async (t) => {
      const { ledger } = await open(t);
      const record = async (fields: Partial<UsageEvent> & { audioMs: number }, terms = TERMS) => t.equal(await ledger.record(event(fields), terms), true);
      // Batch pool of acme, shared by its two keys: 50 min, then 20 min straddling the hour, then 6 min.
      await record({ keyId: 'key_k1', route: 'job', audioMs: 3_000_000 });
      await record({ keyId: 'key_k2', route: 'inline', audioMs: 1_200_000 });
      await record({ keyId: 'key_k1', route: 'translation', audioMs: 360_000 });
      // Realtime is a pool of its own: its allowance is untouched by the batch hours above.
      await record({ keyId: 'key_k1', route: 'realtime', audioMs: 3_000_000 });
      await record({ keyId: 'key_k2', route: 'realtime', audioMs: 1_000_000 });
      // Another tenant, and acme's next period: fresh allowances.
      await record({ tenant: 'other', keyId: 'key_k3', audioMs: 5 * HOUR });
      await record({ keyId: 'key_k1', period: JUNE, audioMs: 4_000_000 });

      t.strictSame(await ledger.standing('acme', 'key_k1', MAY), {
        tenantUsedMs: { batch: 4_560_000, realtime: 4_000_000 },
        // k1's 6 min entirely beyond the allowance: 0.1 h at 450 000 = 45 000.
        keyPeriodCostMicros: 45_000,
        // and 400 000 ms beyond June's allowance: 50 000.
        keyLifetimeCostMicros: 95_000,
      });
      t.strictSame(await ledger.standing('acme', 'key_k2', MAY), {
        tenantUsedMs: { batch: 4_560_000, realtime: 4_000_000 },
        // The straddling 20 min pay for their 10 min tail (75 000), the realtime 1 000 000 ms for 400 000 ms (50 000).
        keyPeriodCostMicros: 125_000,
        keyLifetimeCostMicros: 125_000,
      });
      t.strictSame(await ledger.standing('acme', 'key_k1', JUNE), {
        tenantUsedMs: { batch: 4_000_000, realtime: 0 },
        keyPeriodCostMicros: 50_000,
        keyLifetimeCostMicros: 95_000,
      });
      t.strictSame(await ledger.standing('other', 'key_k3', MAY), {
        tenantUsedMs: { batch: 5 * HOUR, realtime: 0 },
        keyPeriodCostMicros: 4 * 450_000,
        keyLifetimeCostMicros: 4 * 450_000,
      });
      t.strictSame(await ledger.standing('acme', 'key_k1', '2031-04'), {
        tenantUsedMs: { batch: 0, realtime: 0 },
        keyPeriodCostMicros: 0,
        keyLifetimeCostMicros: 95_000,
      });

      const lines = await ledger.report({ period: MAY, tenant: 'acme' });
      const line = (keyId: string, route: UsageRoute) => lines.find((l) => l.keyId === keyId && l.route === route);
      t.match(line('key_k1', 'job'), { audioMs: 3_000_000, overageMs: 0, costMicros: 0 }, 'within the allowance: free');
      t.match(line('key_k2', 'inline'), { audioMs: 1_200_000, overageMs: 600_000, costMicros: 75_000 }, 'straddling: its tail only');
      t.match(line('key_k1', 'translation'), { audioMs: 360_000, overageMs: 360_000, costMicros: 45_000 }, 'after: all of it');
      t.match(line('key_k1', 'realtime'), { audioMs: 3_000_000, overageMs: 0, costMicros: 0 }, 'realtime has its own allowance');
      t.match(line('key_k2', 'realtime'), { audioMs: 1_000_000, overageMs: 400_000, costMicros: 50_000 });
      t.match((await ledger.report({ period: MAY, tenant: 'other' }))[0], { overageMs: 4 * HOUR, costMicros: 4 * 450_000 }, 'another tenant counts from zero');
      t.match((await ledger.report({ period: JUNE }))[0], { overageMs: 400_000, costMicros: 50_000 }, 'the next period counts from zero');
    });

    t.test("charges under each key's own terms; unlimited charges nothing; no price charges overage_ms at 0", async (t) => {
      const { ledger } = await open(t);
      await ledger.record(event({ tenant: 'unl', keyId: 'key_u', audioMs: 10 * HOUR }), { includedMs: null, priceMicrosPerHour: 450_000 });
      await ledger.record(event({ tenant: 'free', keyId: 'key_f', audioMs: 3 * HOUR }), { includedMs: HOUR, priceMicrosPerHour: null });
      await ledger.record(event({ tenant: 'mix', keyId: 'key_a', audioMs: 2 * HOUR }), { includedMs: HOUR, priceMicrosPerHour: 300_000 });
      await ledger.record(event({ tenant: 'mix', keyId: 'key_b', audioMs: HOUR }), { includedMs: HOUR, priceMicrosPerHour: 1_000_000 });
      await ledger.record(event({ tenant: 'mix', keyId: 'key_c', audioMs: HOUR }), { includedMs: 0, priceMicrosPerHour: 0 });
      const lines = await ledger.report({ period: MAY });
      const of = (keyId: string) => lines.find((l) => l.keyId === keyId);
      t.match(of('key_u'), { audioMs: 10 * HOUR, overageMs: 0, costMicros: 0 }, 'includedMs null: nothing beyond');
      t.match(of('key_f'), { audioMs: 3 * HOUR, overageMs: 2 * HOUR, costMicros: 0 }, 'priceMicrosPerHour null: overage counted, not priced');
      t.match(of('key_a'), { overageMs: HOUR, costMicros: 300_000 });
      t.match(of('key_b'), { overageMs: HOUR, costMicros: 1_000_000 }, "the key's own price");
      t.match(of('key_c'), { overageMs: HOUR, costMicros: 0 }, 'price 0');
      t.equal((await ledger.standing('unl', 'key_u', MAY)).tenantUsedMs.batch, 10 * HOUR, 'unlimited work still counts as used');
      t.equal((await ledger.standing('free', 'key_f', MAY)).keyLifetimeCostMicros, 0);
    });

    t.test('report: lines per tenant, key, route, model and language family with sums; tenant filter; other periods excluded', async (t) => {
      const { ledger } = await open(t);
      const big: PoolTerms = { includedMs: 100 * HOUR, priceMicrosPerHour: 450_000 };
      const inputs: UsageEvent[] = [
        event({
          keyId: 'key_k1',
          route: 'job',
          model: 'base',
          languageFamily: 'en',
          audioMs: 1_000,
          diarization: true,
          vocabulary: true,
          safety: safety(1, 0, 2, 0),
        }),
        event({ keyId: 'key_k1', route: 'job', model: 'base', languageFamily: 'en', audioMs: 2_000, patterns: true, safety: safety(0, 3, 0, 0) }),
        event({ keyId: 'key_k1', route: 'job', model: 'base', languageFamily: 'en', audioMs: 4_000, diarization: true, patterns: true }),
        event({ keyId: 'key_k1', route: 'job', model: 'base', languageFamily: 'fr', audioMs: 8_000, vocabulary: true }),
        event({ keyId: 'key_k1', route: 'job', model: 'small', languageFamily: 'en', audioMs: 16_000, safety: safety(0, 0, 0, 1) }),
        event({ keyId: 'key_k1', route: 'inline', model: 'base', languageFamily: 'und', audioMs: 32_000 }),
        event({ keyId: 'key_k1', route: 'realtime', model: 'base', languageFamily: 'mixed', audioMs: 64_000, diarization: true }),
        event({ keyId: 'key_k1', route: 'realtime', model: 'base', languageFamily: 'mixed', audioMs: 128_000, safety: safety(5, 6, 7, 8) }),
        event({ keyId: 'key_k2', route: 'job', model: 'base', languageFamily: 'en', audioMs: 256_000, vocabulary: true, patterns: true }),
        event({ tenant: 'beta', keyId: 'key_b1', route: 'translation', model: 'base', languageFamily: 'de', audioMs: 512_000 }),
        // Another period: in neither report below.
        event({
          keyId: 'key_k1',
          period: JUNE,
          route: 'job',
          model: 'base',
          languageFamily: 'en',
          audioMs: 1_024_000,
          diarization: true,
          safety: safety(9, 9, 9, 9),
        }),
        event({ keyId: 'key_k3', period: '2031-04', route: 'job', model: 'base', languageFamily: 'en', audioMs: 2_048_000 }),
      ];
      for (const input of inputs) t.equal(await ledger.record(input, big), true);
      const line = (
        fields: Pick<UsageLine, 'tenant' | 'keyId' | 'route' | 'model' | 'languageFamily'>,
        sums: Omit<UsageLine, 'tenant' | 'keyId' | 'route' | 'model' | 'languageFamily' | 'overageMs' | 'costMicros'>,
      ): UsageLine => ({
        ...fields,
        units: sums.units,
        audioMs: sums.audioMs,
        overageMs: 0,
        costMicros: 0,
        diarizationMs: sums.diarizationMs,
        vocabularyMs: sums.vocabularyMs,
        patternsMs: sums.patternsMs,
        safety: sums.safety,
      });
      const acme = [
        line(
          { tenant: 'acme', keyId: 'key_k1', route: 'inline', model: 'base', languageFamily: 'und' },
          { units: 1, audioMs: 32_000, diarizationMs: 0, vocabularyMs: 0, patternsMs: 0, safety: NO_SAFETY_EVENTS },
        ),
        line(
          { tenant: 'acme', keyId: 'key_k1', route: 'job', model: 'base', languageFamily: 'en' },
          { units: 3, audioMs: 7_000, diarizationMs: 5_000, vocabularyMs: 1_000, patternsMs: 6_000, safety: safety(1, 3, 2, 0) },
        ),
        line(
          { tenant: 'acme', keyId: 'key_k1', route: 'job', model: 'base', languageFamily: 'fr' },
          { units: 1, audioMs: 8_000, diarizationMs: 0, vocabularyMs: 8_000, patternsMs: 0, safety: NO_SAFETY_EVENTS },
        ),
        line(
          { tenant: 'acme', keyId: 'key_k1', route: 'job', model: 'small', languageFamily: 'en' },
          { units: 1, audioMs: 16_000, diarizationMs: 0, vocabularyMs: 0, patternsMs: 0, safety: safety(0, 0, 0, 1) },
        ),
        line(
          { tenant: 'acme', keyId: 'key_k1', route: 'realtime', model: 'base', languageFamily: 'mixed' },
          { units: 2, audioMs: 192_000, diarizationMs: 64_000, vocabularyMs: 0, patternsMs: 0, safety: safety(5, 6, 7, 8) },
        ),
        line(
          { tenant: 'acme', keyId: 'key_k2', route: 'job', model: 'base', languageFamily: 'en' },
          { units: 1, audioMs: 256_000, diarizationMs: 0, vocabularyMs: 256_000, patternsMs: 256_000, safety: NO_SAFETY_EVENTS },
        ),
      ];
      const beta = [
        line(
          { tenant: 'beta', keyId: 'key_b1', route: 'translation', model: 'base', languageFamily: 'de' },
          { units: 1, audioMs: 512_000, diarizationMs: 0, vocabularyMs: 0, patternsMs: 0, safety: NO_SAFETY_EVENTS },
        ),
      ];
      t.strictSame(await ledger.report({ period: MAY }), [...acme, ...beta], 'every tenant, in order of tenant, key, route, model, family');
      t.strictSame(await ledger.report({ period: MAY, tenant: 'acme' }), acme, 'one tenant');
      t.strictSame(await ledger.report({ period: MAY, tenant: 'beta' }), beta);
      t.strictSame(await ledger.report({ period: MAY, tenant: 'nobody' }), []);
      t.strictSame(await ledger.report({ period: '2031-07' }), [], 'an empty period');
      t.strictSame(
        await ledger.periodTotals(MAY),
        [
          { tenant: 'acme', pool: 'batch', audioMs: 319_000, overageMs: 0, costMicros: 0 },
          { tenant: 'acme', pool: 'realtime', audioMs: 192_000, overageMs: 0, costMicros: 0 },
          { tenant: 'beta', pool: 'batch', audioMs: 512_000, overageMs: 0, costMicros: 0 },
        ],
        "the period's totals per tenant and pool, every key's work in its tenant's",
      );
      t.strictSame(await ledger.periodTotals('2031-07'), []);
      const june = await ledger.report({ period: JUNE });
      t.equal(june.length, 1);
      t.match(june[0], { keyId: 'key_k1', units: 1, audioMs: 1_024_000, diarizationMs: 1_024_000, safety: safety(9, 9, 9, 9) });
    });

    t.test('daily: audio per tenant, UTC day, route and pool; tenant filter; other periods excluded', async (t) => {
      const { ledger } = await open(t);
      const day = (iso: string) => Date.parse(iso);
      const inputs: UsageEvent[] = [
        event({ atMs: day('2031-05-10T00:00:00.000Z'), route: 'inline', audioMs: 1_000 }),
        event({ atMs: day('2031-05-10T23:59:59.999Z'), route: 'inline', audioMs: 2_000 }),
        event({ atMs: day('2031-05-10T12:00:00.000Z'), keyId: 'key_k2', route: 'job', audioMs: 4_000 }),
        event({ atMs: day('2031-05-10T12:00:00.000Z'), route: 'realtime', audioMs: 8_000 }),
        event({ atMs: day('2031-05-11T00:00:00.000Z'), route: 'inline', audioMs: 16_000 }),
        event({ atMs: day('2031-05-11T09:00:00.000Z'), tenant: 'beta', keyId: 'key_b1', route: 'translation', audioMs: 32_000 }),
        event({ atMs: day('2031-06-01T09:00:00.000Z'), period: JUNE, route: 'inline', audioMs: 64_000 }),
      ];
      for (const input of inputs) t.equal(await ledger.record(input, TERMS), true);
      const acme = [
        { tenant: 'acme', day: '2031-05-10', route: 'inline', pool: 'batch', units: 2, audioMs: 3_000 },
        { tenant: 'acme', day: '2031-05-10', route: 'job', pool: 'batch', units: 1, audioMs: 4_000 },
        { tenant: 'acme', day: '2031-05-10', route: 'realtime', pool: 'realtime', units: 1, audioMs: 8_000 },
        { tenant: 'acme', day: '2031-05-11', route: 'inline', pool: 'batch', units: 1, audioMs: 16_000 },
      ];
      const beta = [{ tenant: 'beta', day: '2031-05-11', route: 'translation', pool: 'batch', units: 1, audioMs: 32_000 }];
      t.strictSame(await ledger.daily({ period: MAY }), [...acme, ...beta], 'every tenant, by tenant, day, route and pool; keys summed');
      t.strictSame(await ledger.daily({ period: MAY, tenant: 'acme' }), acme, 'one tenant');
      t.strictSame(await ledger.daily({ period: MAY, tenant: 'nobody' }), []);
      t.strictSame(await ledger.daily({ period: JUNE, tenant: 'acme' }), [
        { tenant: 'acme', day: '2031-06-01', route: 'inline', pool: 'batch', units: 1, audioMs: 64_000 },
      ]);
    });

    t.test('ledgers on separate connections racing one tenant past its allowance charge exactly the overage, each event once', async (t) => {
      const { ledger, another } = await open(t);
      const other = await another();
      const audioMs = 130_000; // 3 600 000 is not a multiple: one event straddles the allowance
      const events = Array.from({ length: 40 }, (_, i) =>
        event({ eventKey: `realtime:race:${i}`, keyId: i % 2 ? 'key_k1' : 'key_k2', route: i % 5 ? 'job' : 'inline', audioMs }),
      );
      // Every event is recorded twice, by both ledgers, all at once.
      const outcomes = await Promise.all(
        events.flatMap((e, i) => (i % 2 ? [ledger.record(e, TERMS), other.record(e, TERMS)] : [other.record(e, TERMS), ledger.record(e, TERMS)])),
      );
      for (let i = 0; i < events.length; i += 1) {
        t.equal(Number(outcomes[2 * i]) + Number(outcomes[2 * i + 1]), 1, `${events[i].eventKey} recorded once`);
      }
      const totalMs = events.length * audioMs;
      const expectedOverage = Math.max(0, totalMs - HOUR);
      const lines = await other.report({ period: MAY, tenant: 'acme' });
      t.equal(sumOf(lines, 'units'), events.length);
      t.equal(sumOf(lines, 'audioMs'), totalMs);
      t.equal(sumOf(lines, 'overageMs'), expectedOverage, 'overage = total − included: nothing charged twice, nothing lost');
      t.equal(sumOf(lines, 'costMicros'), (expectedOverage * 450_000) / HOUR);
      const k1 = await ledger.standing('acme', 'key_k1', MAY);
      const k2 = await ledger.standing('acme', 'key_k2', MAY);
      t.equal(k1.tenantUsedMs.batch, totalMs);
      t.equal(k1.keyPeriodCostMicros + k2.keyPeriodCostMicros, (expectedOverage * 450_000) / HOUR);
    });

    t.test('reservations count in decisions until the event of their key is recorded or they are released', async (t) => {
      const { ledger, instanceAlive } = await open(t);
      await instanceAlive('inst_a', true);
      const seen: UsageStanding[] = [];
      const admit = (key: string, audioMs: number, costMicros = 0, keyId = 'key_k1') =>
        ledger.reserve<string>(reservation({ key, audioMs, keyId }), (standing) => {
          seen.push(standing);
          return { costMicros };
        });
      t.equal(await admit('inline:r1', 30 * 60_000, 1_000), null);
      t.equal(await admit('inline:r2', 20 * 60_000, 500, 'key_k2'), null);
      t.equal(
        await ledger.reserve(reservation({ key: 'inline:r3', audioMs: 1 }), () => ({ refused: 'allowance' })),
        'allowance',
        'a refusal is returned and nothing is held',
      );
      t.equal(await admit('inline:probe', 0), null);
      t.same(seen.at(-1), { tenantUsedMs: { batch: 50 * 60_000, realtime: 0 }, keyPeriodCostMicros: 1_000, keyLifetimeCostMicros: 1_000 });
      await ledger.release('inline:probe');
      // Recording r1's event converts its reservation: its audio counts once, as recorded.
      t.equal(await ledger.record(event({ eventKey: 'inline:r1', route: 'inline', audioMs: 30 * 60_000 }), TERMS), true);
      await admit('inline:probe', 0, 0, 'key_k2');
      t.same(seen.at(-1), { tenantUsedMs: { batch: 50 * 60_000, realtime: 0 }, keyPeriodCostMicros: 500, keyLifetimeCostMicros: 500 });
      await ledger.release('inline:r2');
      await ledger.release('inline:r2');
      await admit('inline:probe', 0, 0, 'key_k2');
      t.same(seen.at(-1), { tenantUsedMs: { batch: 30 * 60_000, realtime: 0 }, keyPeriodCostMicros: 0, keyLifetimeCostMicros: 0 }, 'released: counted no more');
      // Reserving a key again replaces it and does not count against itself.
      await admit('inline:probe', 10 * 60_000);
      await admit('inline:probe', 10 * 60_000);
      t.same(seen.at(-1)!.tenantUsedMs.batch, 30 * 60_000);
      await admit('inline:other', 0);
      t.same(seen.at(-1)!.tenantUsedMs.batch, 40 * 60_000);
      // Other tenants and periods are not counted.
      await ledger.reserve(reservation({ key: 'inline:june', audioMs: 5 * 60_000, period: JUNE }), () => ({ costMicros: 0 }));
      await ledger.reserve(reservation({ key: 'inline:globex', audioMs: 5 * 60_000, tenant: 'globex', keyId: 'key_g' }), () => ({ costMicros: 0 }));
      await admit('inline:other', 0);
      t.same(seen.at(-1)!.tenantUsedMs.batch, 40 * 60_000);
    });

    t.test("a dead instance's reservations and a job's that is not running count no more, and are swept", async (t) => {
      const { ledger, instanceAlive } = await open(t);
      await instanceAlive('inst_a', true);
      await instanceAlive('inst_b', true);
      await ledger.reserve(reservation({ key: 'inline:a', audioMs: 60_000 }), () => ({ costMicros: 7 }));
      await ledger.reserve(reservation({ key: 'inline:b', audioMs: 120_000, holder: { instance: 'inst_b' } }), () => ({ costMicros: 11 }));
      await ledger.reserve(reservation({ key: 'job:none', audioMs: 240_000, holder: { job: 'job_missing' } }), () => ({ costMicros: 13 }));
      const standing = async () => {
        let seen: UsageStanding | undefined;
        await ledger.reserve(reservation({ key: 'inline:probe', audioMs: 0 }), (s) => {
          seen = s;
          return { refused: 'probe' };
        });
        return seen!;
      };
      t.same(await standing(), { tenantUsedMs: { batch: 180_000, realtime: 0 }, keyPeriodCostMicros: 18, keyLifetimeCostMicros: 18 });
      await instanceAlive('inst_b', false);
      t.same(await standing(), { tenantUsedMs: { batch: 60_000, realtime: 0 }, keyPeriodCostMicros: 7, keyLifetimeCostMicros: 7 });
      t.equal(await ledger.deleteDeadReservations(), 2, "inst_b's and the missing job's");
      t.equal(await ledger.deleteDeadReservations(), 0);
      await instanceAlive('inst_b', true);
      t.same((await standing()).tenantUsedMs.batch, 60_000, 'swept: a returning instance id holds nothing');
    });

    t.test('a job reserved for before its row exists is held by its instance until accepted, by the job from then on, by nothing once it ended', async (t) => {
      const { ledger, instanceAlive, jobStatus } = await open(t);
      await instanceAlive('inst_a', true);
      const held = async (): Promise<number> => {
        let seen: UsageStanding | undefined;
        await ledger.reserve(reservation({ key: 'inline:probe', audioMs: 0 }), (s) => {
          seen = s;
          return { refused: 'probe' };
        });
        return seen!.tenantUsedMs.batch;
      };
      const reserveFor = (job: string) =>
        ledger.reserve(reservation({ key: `job:${job}`, audioMs: 60_000, holder: { instance: 'inst_a', job } }), () => ({ costMicros: 0 }));
      await reserveFor('job_direct');
      await reserveFor('job_presigned');
      await jobStatus('job_presigned', 'awaiting_upload');
      t.equal(await held(), 120_000, 'before the row exists and while the upload is awaited: held by the instance');
      await jobStatus('job_direct', 'accepted');
      await jobStatus('job_presigned', 'accepted');
      await instanceAlive('inst_a', false);
      t.equal(await held(), 120_000, 'accepted: held by the job, though the instance died');
      await jobStatus('job_direct', 'running');
      await jobStatus('job_presigned', 'failed');
      t.equal(await held(), 60_000, 'a job that failed holds nothing');
      await instanceAlive('inst_a', true);
      await reserveFor('job_waiting');
      await jobStatus('job_waiting', 'awaiting_upload');
      await reserveFor('job_expired');
      await jobStatus('job_expired', 'failed');
      t.equal(await held(), 120_000, 'an ended job holds nothing even while its instance lives');
      await instanceAlive('inst_a', false);
      t.equal(await held(), 60_000, "awaiting the upload, the instance that reserved died: the completion's reservation is gone");
      t.equal(await ledger.deleteDeadReservations(), 3, 'the failed, the expired and the orphaned completion are swept');
    });

    t.test('ledgers on separate connections reserving the last of an allowance at once admit exactly what fits', async (t) => {
      const { ledger, another, instanceAlive } = await open(t);
      await instanceAlive('inst_a', true);
      const ledgers = [ledger, await another(), await another()];
      const tenMinutes = 10 * 60_000;
      // One hour included, 20 minutes of it recorded: four 10-minute requests fit of 30 racing.
      await ledger.record(event({ audioMs: 2 * tenMinutes }), TERMS);
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          ledgers[i % ledgers.length].reserve<string>(reservation({ key: `inline:race${i}`, audioMs: tenMinutes, keyId: i % 2 ? 'key_k1' : 'key_k2' }), (s) =>
            s.tenantUsedMs.batch + tenMinutes <= HOUR ? { costMicros: 0 } : { refused: 'allowance' },
          ),
        ),
      );
      t.equal(outcomes.filter((o) => o === null).length, 4, 'admitted: exactly what the allowance had left');
      t.equal(outcomes.filter((o) => o === 'allowance').length, 26);
    });

    t.test('at rest: counters and identifiers only, no content', async (t) => {
      const { ledger, rawRows, columnNames } = await open(t);
      const transcript = 'the patient reports chest pain since tuesday';
      const fileName = 'visit-2031-05-10-smith.wav';
      const withContent = {
        ...event({ eventKey: 'inline:req_1', route: 'inline', audioMs: 5_000, diarization: true, safety: safety(1, 2, 3, 4) }),
        // What a careless caller might hand over: none of it may be stored.
        text: transcript,
        transcript,
        fileName,
        filename: fileName,
        language: 'en-GB',
        prompt: 'chest pain, tuesday',
      } as UsageEvent;
      t.equal(await ledger.record(withContent, TERMS), true);
      t.equal(await ledger.record(event({ eventKey: 'realtime:s1:0', route: 'realtime', audioMs: HOUR + 1_000, languageFamily: 'mixed' }), TERMS), true);

      const expected = [...USAGE_EVENT_COLUMNS].sort();
      t.strictSame([...(await columnNames())].sort(), expected, "the table has exactly the ledger's columns");
      const rows = await rawRows();
      t.equal(rows.length, 2);
      for (const row of rows) {
        t.strictSame(Object.keys(row).sort(), expected, `${String(row.event_key)}: every column read back is a ledger column`);
        const textColumns = Object.entries(row)
          .filter(([, value]) => typeof value === 'string')
          .map(([column]) => column)
          .sort();
        t.strictSame(textColumns, [...TEXT_COLUMNS].sort(), `${String(row.event_key)}: text only in identifier and category columns`);
        for (const [column, value] of Object.entries(row)) {
          if (!TEXT_COLUMNS.includes(column)) t.equal(typeof value, 'number', `${column} is a number`);
        }
        const stored = JSON.stringify(row);
        for (const content of [transcript, fileName, 'chest', 'smith', 'en-GB']) t.notOk(stored.includes(content), `no ${JSON.stringify(content)} stored`);
      }
      const inline = rows.find((row) => row.event_key === 'inline:req_1');
      t.match(inline, {
        tenant: 'acme',
        key_id: 'key_k1',
        period: MAY,
        route: 'inline',
        pool: 'batch',
        model: 'base',
        language_family: 'en',
        diarization: 1,
        vocabulary: 0,
        patterns: 0,
        audio_ms: 5_000,
        overage_ms: 0,
        cost_micros: 0,
        vocabulary_fallbacks: 1,
        suspect_insertions: 2,
        review_required: 3,
        unsupported_language: 4,
      });
      t.match(
        rows.find((row) => row.event_key === 'realtime:s1:0'),
        { pool: 'realtime', language_family: 'mixed', overage_ms: 1_000, cost_micros: 125 },
      );
    });
  });
}
