// The usage gauges' figures: the current period's totals per tenant and pool, with the tenants that
// used the most audio named and the rest summed under OTHER_TENANTS, so a scrape's series stay
// bounded however many tenants there are (tenant ids only where bounded).
import type { PoolTotals } from '../store/usage-record.js';

/** The label of the tenants not named. */
export const OTHER_TENANTS = '_others';

/**
 * The `named` tenants with the most audio (ties by id) keep their id, the others are summed per pool
 * as OTHER_TENANTS. Ordered by tenant then pool.
 */
export function usageByTenant(totals: readonly PoolTotals[], named: number): PoolTotals[] {
  const audioOf = new Map<string, number>();
  for (const line of totals) audioOf.set(line.tenant, (audioOf.get(line.tenant) ?? 0) + line.audioMs);
  const kept = new Set(
    [...audioOf.entries()]
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, named)
      .map(([tenant]) => tenant),
  );
  const sums = new Map<string, PoolTotals>();
  for (const line of totals) {
    const tenant = kept.has(line.tenant) ? line.tenant : OTHER_TENANTS;
    const { pool } = line;
    const key = `${tenant}\u0000${pool}`;
    const sum = sums.get(key) ?? { tenant, pool, audioMs: 0, overageMs: 0, costMicros: 0 };
    sum.audioMs += line.audioMs;
    sum.overageMs += line.overageMs;
    sum.costMicros += line.costMicros;
    sums.set(key, sum);
  }
  return [...sums.values()].sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : a.pool < b.pool ? -1 : a.pool > b.pool ? 1 : 0));
}
