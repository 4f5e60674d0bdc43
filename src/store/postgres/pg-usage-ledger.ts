// The usage ledger in PostgreSQL (see usage-ledger.ts). Recording takes a transaction-scoped advisory
// lock on the tenant before its sum, so processes recording the same tenant's work take turns and
// each charge is figured from the sum of everything recorded before it. The sums are read from the
// totals the database keeps with each event (migration 6), one row each.
import type { UsageLedger } from '../usage-ledger.js';
import {
  chargeOf,
  poolOf,
  USAGE_EVENT_COLUMNS,
  usageEventRow,
  type PoolTerms,
  type PoolTotals,
  type UsageEvent,
  type UsageLine,
  type UsageQuery,
  type UsageStanding,
} from '../usage-record.js';
import { POOL_TOTALS_ORDER, POOL_TOTALS_SELECT, poolTotalsOf, REPORT_GROUPING, REPORT_SELECT, standingOf, usageLineOf, type PoolTotalsRow, type UsageLineRow } from '../usage-report-row.js';
import type { PostgresDatabase } from './database.js';

import type { Queryable } from './queryable.js';
/** Keeps the ledger's locks apart from other advisory locks. */
const LOCK_CLASS = 'usage_events:';

const INSERT = `INSERT INTO usage_events (${USAGE_EVENT_COLUMNS.join(', ')}) VALUES (${USAGE_EVENT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  ON CONFLICT (event_key) DO NOTHING`;

/** Records the event on `client`, which must be inside a transaction (the lock lasts until it ends). */
export async function recordUsage(client: Queryable, event: UsageEvent, terms: PoolTerms): Promise<boolean> {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [LOCK_CLASS + event.tenant]);
  const { rows: seen } = await client.query('SELECT 1 FROM usage_events WHERE event_key = $1', [event.eventKey]);
  if (seen.length > 0) return false;
  const { rows } = await client.query<{ ms: number }>(
    'SELECT CAST(coalesce((SELECT audio_ms FROM usage_pool_totals WHERE tenant = $1 AND period = $2 AND pool = $3), 0) AS BIGINT) AS ms',
    [event.tenant, event.period, poolOf(event.route)],
  );
  const row = usageEventRow(event, chargeOf(rows[0].ms, event.audioMs, terms));
  const { rowCount } = await client.query(INSERT, USAGE_EVENT_COLUMNS.map((column) => row[column]));
  return rowCount === 1;
}

/** Passages found to need review after the event was recorded (a job's decoration). */
export async function addReviewRequired(client: Queryable, eventKey: string, passages: number): Promise<void> {
  await client.query('UPDATE usage_events SET review_required = review_required + $1 WHERE event_key = $2', [passages, eventKey]);
}

export class PgUsageLedger implements UsageLedger {
  constructor(private readonly db: PostgresDatabase) {}

  async record(event: UsageEvent, terms: PoolTerms): Promise<boolean> {
    return this.db.transaction((client) => recordUsage(client, event, terms));
  }

  async standing(tenant: string, keyId: string, period: string): Promise<UsageStanding> {
    const { rows: pools } = await this.db.query<{ pool: string; ms: number }>(
      'SELECT pool, audio_ms AS ms FROM usage_pool_totals WHERE tenant = $1 AND period = $2',
      [tenant, period],
    );
    const { rows } = await this.db.query<{ period_cost: number; lifetime_cost: number }>(
      `SELECT CAST(coalesce(sum(CASE WHEN period = $1 THEN cost_micros ELSE 0 END), 0) AS BIGINT) AS period_cost,
         CAST(coalesce(sum(cost_micros), 0) AS BIGINT) AS lifetime_cost
       FROM usage_key_costs WHERE key_id = $2`,
      [period, keyId],
    );
    return standingOf({ pools, cost: rows[0] });
  }

  async report(query: UsageQuery): Promise<UsageLine[]> {
    const values: unknown[] = [query.period];
    if (query.tenant !== undefined) values.push(query.tenant);
    const { rows } = await this.db.query<UsageLineRow>(
      `${REPORT_SELECT} WHERE period = $1 ${query.tenant === undefined ? '' : 'AND tenant = $2'} ${REPORT_GROUPING}`,
      values,
    );
    return rows.map(usageLineOf);
  }

  async periodTotals(period: string): Promise<PoolTotals[]> {
    const { rows } = await this.db.query<PoolTotalsRow>(`${POOL_TOTALS_SELECT} WHERE period = $1 ${POOL_TOTALS_ORDER}`, [period]);
    return rows.map(poolTotalsOf);
  }
}
