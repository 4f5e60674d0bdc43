// The usage gauges' figures (src/service/usage-gauges.ts): ledger lines summed per tenant and pool,
// the tenants with the most audio named up to the bound, the rest summed under `_others`.
import t from 'tap';
import { OTHER_TENANTS, usageByTenant } from '../../src/service/usage-gauges.js';
import { NO_SAFETY_EVENTS, type UsageLine, type UsageRoute } from '../../src/store/usage-record.js';

const line = (tenant: string, route: UsageRoute, audioMs: number, overageMs = 0, costMicros = 0): UsageLine => ({
  tenant,
  keyId: `key_${tenant}`,
  route,
  model: 'svc-medical-1',
  languageFamily: 'en',
  units: 1,
  audioMs,
  overageMs,
  costMicros,
  diarizationMs: 0,
  vocabularyMs: 0,
  patternsMs: 0,
  safety: NO_SAFETY_EVENTS,
});

const lines = [
  line('big', 'inline', 5_000, 1_000, 10),
  line('big', 'job', 7_000, 2_000, 20),
  line('big', 'realtime', 1_000),
  line('mid', 'translation', 4_000),
  line('tie-b', 'job', 2_000, 500, 5),
  line('tie-a', 'realtime', 2_000, 0, 0),
  line('small', 'job', 1_000, 1_000, 7),
];

t.test('every tenant named when the bound allows: sums per tenant and pool', async (t) => {
  t.same(usageByTenant(lines, 10), [
    { tenant: 'big', pool: 'batch', audioMs: 12_000, overageMs: 3_000, costMicros: 30 },
    { tenant: 'big', pool: 'realtime', audioMs: 1_000, overageMs: 0, costMicros: 0 },
    { tenant: 'mid', pool: 'batch', audioMs: 4_000, overageMs: 0, costMicros: 0 },
    { tenant: 'small', pool: 'batch', audioMs: 1_000, overageMs: 1_000, costMicros: 7 },
    { tenant: 'tie-a', pool: 'realtime', audioMs: 2_000, overageMs: 0, costMicros: 0 },
    { tenant: 'tie-b', pool: 'batch', audioMs: 2_000, overageMs: 500, costMicros: 5 },
  ]);
});

t.test('beyond the bound: the most audio named (ties by id), the rest summed as _others', async (t) => {
  t.same(usageByTenant(lines, 3), [
    { tenant: OTHER_TENANTS, pool: 'batch', audioMs: 3_000, overageMs: 1_500, costMicros: 12 },
    { tenant: 'big', pool: 'batch', audioMs: 12_000, overageMs: 3_000, costMicros: 30 },
    { tenant: 'big', pool: 'realtime', audioMs: 1_000, overageMs: 0, costMicros: 0 },
    { tenant: 'mid', pool: 'batch', audioMs: 4_000, overageMs: 0, costMicros: 0 },
    { tenant: 'tie-a', pool: 'realtime', audioMs: 2_000, overageMs: 0, costMicros: 0 },
  ]);
});

t.test('a bound of 0 names no tenant: the totals per pool', async (t) => {
  t.same(usageByTenant(lines, 0), [
    { tenant: OTHER_TENANTS, pool: 'batch', audioMs: 19_000, overageMs: 4_500, costMicros: 42 },
    { tenant: OTHER_TENANTS, pool: 'realtime', audioMs: 3_000, overageMs: 0, costMicros: 0 },
  ]);
  t.same(usageByTenant([], 5), [], 'no work, no series');
});
