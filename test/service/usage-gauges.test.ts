// The usage gauges' figures (src/service/usage-gauges.ts): the period's totals per tenant and pool,
// the tenants with the most audio named up to the bound, the rest summed per pool under `_others`.
import t from 'tap';

import type { UsagePool } from '../../src/domain/usage-routes.js';
import { OTHER_TENANTS, usageByTenant } from '../../src/service/usage-gauges.js';
import type { PoolTotals } from '../../src/store/usage-record.js';

const total = (tenant: string, pool: UsagePool, audioMs: number, overageMs = 0, costMicros = 0): PoolTotals => ({
  tenant,
  pool,
  audioMs,
  overageMs,
  costMicros,
});

// As the ledger gives them: one row per tenant and pool.
const totals = [
  total('big', 'batch', 12_000, 3_000, 30),
  total('big', 'realtime', 1_000),
  total('mid', 'batch', 4_000),
  total('small', 'batch', 1_000, 1_000, 7),
  total('tie-a', 'realtime', 2_000),
  total('tie-b', 'batch', 2_000, 500, 5),
];

t.test('every tenant named when the bound allows', async (t) => {
  t.same(usageByTenant(totals, 10), [
    { tenant: 'big', pool: 'batch', audioMs: 12_000, overageMs: 3_000, costMicros: 30 },
    { tenant: 'big', pool: 'realtime', audioMs: 1_000, overageMs: 0, costMicros: 0 },
    { tenant: 'mid', pool: 'batch', audioMs: 4_000, overageMs: 0, costMicros: 0 },
    { tenant: 'small', pool: 'batch', audioMs: 1_000, overageMs: 1_000, costMicros: 7 },
    { tenant: 'tie-a', pool: 'realtime', audioMs: 2_000, overageMs: 0, costMicros: 0 },
    { tenant: 'tie-b', pool: 'batch', audioMs: 2_000, overageMs: 500, costMicros: 5 },
  ]);
});

t.test('beyond the bound: the most audio named (ties by id), the rest summed as _others', async (t) => {
  t.same(usageByTenant(totals, 3), [
    { tenant: OTHER_TENANTS, pool: 'batch', audioMs: 3_000, overageMs: 1_500, costMicros: 12 },
    { tenant: 'big', pool: 'batch', audioMs: 12_000, overageMs: 3_000, costMicros: 30 },
    { tenant: 'big', pool: 'realtime', audioMs: 1_000, overageMs: 0, costMicros: 0 },
    { tenant: 'mid', pool: 'batch', audioMs: 4_000, overageMs: 0, costMicros: 0 },
    { tenant: 'tie-a', pool: 'realtime', audioMs: 2_000, overageMs: 0, costMicros: 0 },
  ]);
});

t.test('a bound of 0 names no tenant: the totals per pool', async (t) => {
  t.same(usageByTenant(totals, 0), [
    { tenant: OTHER_TENANTS, pool: 'batch', audioMs: 19_000, overageMs: 4_500, costMicros: 42 },
    { tenant: OTHER_TENANTS, pool: 'realtime', audioMs: 3_000, overageMs: 0, costMicros: 0 },
  ]);
  t.same(usageByTenant([], 5), [], 'no work, no series');
});
