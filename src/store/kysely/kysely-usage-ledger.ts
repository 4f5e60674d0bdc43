// The usage ledger (see usage-ledger.ts): one implementation for SQLite and PostgreSQL, on Kysely
// (store-db.ts). The sums are read from the totals each database keeps with every event inserted
// (a trigger: SQLite migration 8, PostgreSQL migration 6), one row each.
//
// Each charge is figured from the sum of everything recorded before it: recordUsage runs inside a
// transaction (the job store's success, or the ledger's own) that on SQLite holds the write lock
// from its start (`immediate`) and on PostgreSQL takes an advisory lock on the tenant before its
// sum, so processes recording the same tenant's work take turns and other tenants' do not wait.
// Reservations (usage-reservation.ts) are admitted under the same locks, from the same sums plus the
// live reservations', and recording an event deletes the reservation of the same key.
import { type RawBuilder, sql, type SqlBool } from 'kysely';

import { poolOf } from '../../domain/usage-routes.js';
import type { UsageLedger } from '../usage-ledger.js';
import {
  chargeOf,
  type DailyUsage,
  type PoolTerms,
  type PoolTotals,
  type UsageEvent,
  usageEventRow,
  type UsageLine,
  type UsageQuery,
  type UsageStanding,
} from '../usage-record.js';
import {
  DAILY_GROUPING,
  DAILY_SELECT,
  dailyUsageOf,
  type DailyUsageRow,
  POOL_TOTALS_ORDER,
  POOL_TOTALS_SELECT,
  poolTotalsOf,
  type PoolTotalsRow,
  REPORT_GROUPING,
  REPORT_SELECT,
  standingOf,
  usageLineOf,
  type UsageLineRow,
} from '../usage-report-row.js';
import type { ReservationDecision, UsageReservation } from '../usage-reservation.js';
import { immediate } from './immediate.js';
import { onPostgresDb } from './store-db.js';
import type { StoreDb } from './store-schema.js';

/** Keeps the ledger's advisory locks apart from other advisory locks (PostgreSQL). */
const LOCK_CLASS = 'usage_events:';

/** The tenant's work takes turns (PostgreSQL; SQLite's `immediate` holds the write lock already). */
async function lockTenant(trx: StoreDb, tenant: string): Promise<void> {
  if (onPostgresDb(trx)) await sql`SELECT pg_advisory_xact_lock(hashtext(${LOCK_CLASS + tenant}))`.execute(trx);
}

/**
 * Whether a reservation still counts: its job is accepted or running; or its instance is alive and
 * its job, if it names one, has not ended (a direct upload's job not created yet, a job awaiting its
 * upload). The others are left for the sweeper (deleteDeadReservations); no decision counts them meanwhile.
 */
const LIVE_RESERVATION: RawBuilder<SqlBool> = sql<SqlBool>`(
  (usage_reservations.holder_job IS NOT NULL
      AND EXISTS (SELECT 1 FROM jobs j WHERE j.id = usage_reservations.holder_job AND j.status IN ('accepted', 'running')))
  OR (usage_reservations.holder_instance IS NOT NULL
      AND EXISTS (SELECT 1 FROM service_instances i WHERE i.id = usage_reservations.holder_instance)
      AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = usage_reservations.holder_job AND j.status NOT IN ('awaiting_upload', 'accepted', 'running'))))`;

/** Records the event on `trx`, which must be an `immediate` transaction (the locks last until it ends); its reservation, if any, is converted. */
export async function recordUsage(trx: StoreDb, event: UsageEvent, terms: PoolTerms): Promise<boolean> {
  await lockTenant(trx, event.tenant);
  await trx.deleteFrom('usage_reservations').where('reservation_key', '=', event.eventKey).execute();
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

  async reserve<Refusal>(reservation: UsageReservation, decide: ReservationDecision<Refusal>): Promise<Refusal | null> {
    return immediate(this.db, async (trx) => {
      await lockTenant(trx, reservation.tenant);
      const recorded = await readStanding(trx, reservation.tenant, reservation.keyId, reservation.period);
      const reserved = await reservedStanding(trx, reservation.tenant, reservation.keyId, reservation.period, reservation.key);
      const decision = decide(addStandings(recorded, reserved));
      if ('refused' in decision) return decision.refused;
      const row = {
        reservation_key: reservation.key,
        tenant: reservation.tenant,
        key_id: reservation.keyId,
        period: reservation.period,
        pool: reservation.pool,
        audio_ms: Math.round(decision.audioMs ?? reservation.audioMs),
        cost_micros: decision.costMicros,
        holder_instance: reservation.holder.instance ?? null,
        holder_job: reservation.holder.job ?? null,
        at_ms: reservation.atMs,
      };
      // A key reserved again (a job's completion retried) holds what was decided last.
      await trx
        .insertInto('usage_reservations')
        .values(row)
        .onConflict((conflict) => conflict.column('reservation_key').doUpdateSet(row))
        .execute();
      return null;
    });
  }

  async release(reservationKey: string): Promise<void> {
    await this.db.deleteFrom('usage_reservations').where('reservation_key', '=', reservationKey).execute();
  }

  async deleteDeadReservations(): Promise<number> {
    const { numDeletedRows } = await this.db
      .deleteFrom('usage_reservations')
      .where(sql<SqlBool>`NOT ${LIVE_RESERVATION}`)
      .executeTakeFirst();
    return Number(numDeletedRows);
  }

  async standing(tenant: string, keyId: string, period: string): Promise<UsageStanding> {
    return readStanding(this.db, tenant, keyId, period);
  }

  async report(query: UsageQuery): Promise<UsageLine[]> {
    const tenantFilter = query.tenant === undefined ? sql`` : sql`AND tenant = ${query.tenant}`;
    const { rows } = await sql<UsageLineRow>`${sql.raw(REPORT_SELECT)} WHERE period = ${query.period} ${tenantFilter} ${sql.raw(REPORT_GROUPING)}`.execute(
      this.db,
    );
    return rows.map(usageLineOf);
  }

  async daily(query: UsageQuery): Promise<DailyUsage[]> {
    const tenantFilter = query.tenant === undefined ? sql`` : sql`AND tenant = ${query.tenant}`;
    const { rows } = await sql<DailyUsageRow>`${sql.raw(DAILY_SELECT)} WHERE period = ${query.period} ${tenantFilter} ${sql.raw(DAILY_GROUPING)}`.execute(
      this.db,
    );
    return rows.map(dailyUsageOf);
  }

  async periodTotals(period: string): Promise<PoolTotals[]> {
    const { rows } = await sql<PoolTotalsRow>`${sql.raw(POOL_TOTALS_SELECT)} WHERE period = ${period} ${sql.raw(POOL_TOTALS_ORDER)}`.execute(this.db);
    return rows.map(poolTotalsOf);
  }
}

/** A key's charges in `period` and ever, from a table of `period` and `cost_micros` rows (cast: PostgreSQL sums BIGINT as numeric, text to the driver). */
function keyCostSums(period: string) {
  return [
    sql<number>`CAST(coalesce(sum(CASE WHEN period = ${period} THEN cost_micros ELSE 0 END), 0) AS BIGINT)`.as('period_cost'),
    sql<number>`CAST(coalesce(sum(cost_micros), 0) AS BIGINT)`.as('lifetime_cost'),
  ];
}

/** Where the key stands by what was recorded. */
async function readStanding(db: StoreDb, tenant: string, keyId: string, period: string): Promise<UsageStanding> {
  const pools = await db.selectFrom('usage_pool_totals').select(['pool', 'audio_ms as ms']).where('tenant', '=', tenant).where('period', '=', period).execute();
  const cost = await db.selectFrom('usage_key_costs').select(keyCostSums(period)).where('key_id', '=', keyId).executeTakeFirstOrThrow();
  return standingOf({ pools, cost });
}

/** What the live reservations hold, as a standing (`except`: a key being reserved again does not count against itself). */
async function reservedStanding(db: StoreDb, tenant: string, keyId: string, period: string, except: string): Promise<UsageStanding> {
  const pools = await db
    .selectFrom('usage_reservations')
    .select(['pool', sql<number>`CAST(sum(audio_ms) AS BIGINT)`.as('ms')])
    .where('tenant', '=', tenant)
    .where('period', '=', period)
    .where('reservation_key', '<>', except)
    .where(LIVE_RESERVATION)
    .groupBy('pool')
    .execute();
  const cost = await db
    .selectFrom('usage_reservations')
    .select(keyCostSums(period))
    .where('key_id', '=', keyId)
    .where('reservation_key', '<>', except)
    .where(LIVE_RESERVATION)
    .executeTakeFirstOrThrow();
  return standingOf({ pools, cost });
}

function addStandings(a: UsageStanding, b: UsageStanding): UsageStanding {
  return {
    tenantUsedMs: { batch: a.tenantUsedMs.batch + b.tenantUsedMs.batch, realtime: a.tenantUsedMs.realtime + b.tenantUsedMs.realtime },
    keyPeriodCostMicros: a.keyPeriodCostMicros + b.keyPeriodCostMicros,
    keyLifetimeCostMicros: a.keyLifetimeCostMicros + b.keyLifetimeCostMicros,
  };
}
