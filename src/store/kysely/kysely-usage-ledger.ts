// The usage ledger (see usage-ledger.ts): one implementation for SQLite and PostgreSQL, on Kysely
// (store-db.ts). The sums are read from the totals each database keeps with every event inserted
// (a trigger: SQLite migration 8, PostgreSQL migration 6), one row each.
//
// Each charge is figured from the sum of everything recorded before it: recordUsage runs inside a
// transaction (the job store's success, or the ledger's own) that on SQLite holds the write lock
// from its start (`immediate`) and on PostgreSQL takes an advisory lock on the tenant before its
// sum, so processes recording the same tenant's work take turns and other tenants' do not wait.
import { sql } from 'kysely';
import type { UsageLedger } from '../usage-ledger.js';
import {
  chargeOf,
  poolOf,
  usageEventRow,
  type PoolTerms,
  type PoolTotals,
  type UsageEvent,
  type UsageLine,
  type UsageQuery,
  type UsageStanding,
} from '../usage-record.js';
import {
  POOL_TOTALS_ORDER,
  POOL_TOTALS_SELECT,
  poolTotalsOf,
  REPORT_GROUPING,
  REPORT_SELECT,
  standingOf,
  usageLineOf,
  type PoolTotalsRow,
  type UsageLineRow,
} from '../usage-report-row.js';
import { immediate } from './immediate.js';
import { onPostgresDb } from './store-db.js';
import type { StoreDb } from './store-schema.js';

/** Keeps the ledger's advisory locks apart from other advisory locks (PostgreSQL). */
const LOCK_CLASS = 'usage_events:';

/** Records the event on `trx`, which must be an `immediate` transaction (the locks last until it ends). */
export async function recordUsage(trx: StoreDb, event: UsageEvent, terms: PoolTerms): Promise<boolean> {
  if (onPostgresDb(trx)) await sql`SELECT pg_advisory_xact_lock(hashtext(${LOCK_CLASS + event.tenant}))`.execute(trx);
  const seen = await trx.selectFrom('usage_events').select('event_key').where('event_key', '=', event.eventKey).executeTakeFirst();
  if (seen) return false;
  const totals = await trx
    .selectFrom('usage_pool_totals')
    .select('audio_ms')
    .where('tenant', '=', event.tenant)
    .where('period', '=', event.period)
    .where('pool', '=', poolOf(event.route))
    .executeTakeFirst();
  const row = usageEventRow(event, chargeOf(totals?.audio_ms ?? 0, event.audioMs, terms));
  const { numInsertedOrUpdatedRows } = await trx
    .insertInto('usage_events')
    .values(row)
    .onConflict((conflict) => conflict.column('event_key').doNothing())
    .executeTakeFirst();
  return numInsertedOrUpdatedRows === 1n;
}

/** Passages found to need review after the event was recorded (a job's decoration). */
export async function addReviewRequired(db: StoreDb, eventKey: string, passages: number): Promise<void> {
  await db
    .updateTable('usage_events')
    .set((eb) => ({ review_required: eb('review_required', '+', passages) }))
    .where('event_key', '=', eventKey)
    .execute();
}

export class KyselyUsageLedger implements UsageLedger {
  constructor(private readonly db: StoreDb) {}

  async record(event: UsageEvent, terms: PoolTerms): Promise<boolean> {
    return immediate(this.db, (trx) => recordUsage(trx, event, terms));
  }

  async standing(tenant: string, keyId: string, period: string): Promise<UsageStanding> {
    const pools = await this.db
      .selectFrom('usage_pool_totals')
      .select(['pool', 'audio_ms as ms'])
      .where('tenant', '=', tenant)
      .where('period', '=', period)
      .execute();
    // Cast: PostgreSQL sums BIGINT as numeric, which would come back as text.
    const cost = await this.db
      .selectFrom('usage_key_costs')
      .select([
        sql<number>`CAST(coalesce(sum(CASE WHEN period = ${period} THEN cost_micros ELSE 0 END), 0) AS BIGINT)`.as('period_cost'),
        sql<number>`CAST(coalesce(sum(cost_micros), 0) AS BIGINT)`.as('lifetime_cost'),
      ])
      .where('key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    return standingOf({ pools, cost });
  }

  async report(query: UsageQuery): Promise<UsageLine[]> {
    const tenantFilter = query.tenant === undefined ? sql`` : sql`AND tenant = ${query.tenant}`;
    const { rows } = await sql<UsageLineRow>`${sql.raw(REPORT_SELECT)} WHERE period = ${query.period} ${tenantFilter} ${sql.raw(REPORT_GROUPING)}`.execute(
      this.db,
    );
    return rows.map(usageLineOf);
  }

  async periodTotals(period: string): Promise<PoolTotals[]> {
    const { rows } = await sql<PoolTotalsRow>`${sql.raw(POOL_TOTALS_SELECT)} WHERE period = ${period} ${sql.raw(POOL_TOTALS_ORDER)}`.execute(this.db);
    return rows.map(poolTotalsOf);
  }
}
