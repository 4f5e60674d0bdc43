// The usage gauges' figures: the current period's ledger lines summed per tenant and pool, with the
// tenants that used the most audio named and the rest summed under OTHER_TENANTS, so a scrape's
// series stay bounded however many tenants there are (the "tenant ids only where bounded").
import { poolOf, type UsageLine, type UsagePool } from '../store/usage-record.js';

/** The label of the tenants not named. */
export const OTHER_TENANTS = '_others';

export interface TenantPoolUsage {
  tenant: string;
  pool: UsagePool;
  audioMs: number;
  overageMs: number;
  costMicros: number;
}

/**
 * Sums `lines` per tenant and pool; the `named` tenants with the most audio (ties by id) keep their
 * id, the others are summed as OTHER_TENANTS. Ordered by tenant then pool.
 */
export function usageByTenant(lines: readonly UsageLine[], named: number): TenantPoolUsage[] {
  const audioOf = new Map<string, number>();
  for (const line of lines) audioOf.set(line.tenant, (audioOf.get(line.tenant) ?? 0) + line.audioMs);
  const kept = new Set(
    [...audioOf.entries()]
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, named)
      .map(([tenant]) => tenant),
  );
  const sums = new Map<string, TenantPoolUsage>();
  for (const line of lines) {
    const tenant = kept.has(line.tenant) ? line.tenant : OTHER_TENANTS;
    const pool = poolOf(line.route);
    const key = `${tenant}\u0000${pool}`;
    const sum = sums.get(key) ?? { tenant, pool, audioMs: 0, overageMs: 0, costMicros: 0 };
    sum.audioMs += line.audioMs;
    sum.overageMs += line.overageMs;
    sum.costMicros += line.costMicros;
    sums.set(key, sum);
  }
  return [...sums.values()].sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : a.pool < b.pool ? -1 : a.pool > b.pool ? 1 : 0));
}
