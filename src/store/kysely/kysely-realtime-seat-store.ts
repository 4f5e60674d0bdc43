// Realtime seats (see realtime-seat-store.ts): one implementation for SQLite and PostgreSQL, on
// Kysely (store-db.ts). A take is one `immediate` transaction: on SQLite the write lock is taken
// before the count, so two processes on one file cannot both take a last seat; on PostgreSQL it
// holds an advisory lock on the tenant, so processes racing for a project's last seat take turns
// and other projects' starts do not wait.
import { sql } from 'kysely';

import {
  type HeldSeats,
  type RealtimeSeatStore,
  type SeatClaim,
  type SeatLimits,
  type SeatOutcome,
  seatOutcome,
  type SeatStoreOptions,
} from '../realtime-seat-store.js';
import { immediate } from './immediate.js';
import { onPostgresDb } from './store-db.js';
import type { StoreDb } from './store-schema.js';

/** Keeps the seat locks apart from other advisory locks (PostgreSQL; the migration lock's key is a bigint). */
const LOCK_CLASS = 'realtime_seats:';

export class KyselyRealtimeSeatStore implements RealtimeSeatStore {
  constructor(
    private readonly db: StoreDb,
    private readonly options: SeatStoreOptions,
  ) {}

  async take(claim: SeatClaim, limits: SeatLimits, nowMs: number): Promise<SeatOutcome> {
    return immediate(this.db, async (trx) => {
      if (onPostgresDb(trx)) await sql`SELECT pg_advisory_xact_lock(hashtext(${LOCK_CLASS + claim.tenant}))`.execute(trx);
      await trx.deleteFrom('realtime_seats').where('tenant', '=', claim.tenant).where(seatOfDeadInstance).execute();
      const outcome = seatOutcome(await count(trx, claim.tenant, nowMs), limits, claim.speakers);
      if (outcome === 'taken') {
        await trx
          .insertInto('realtime_seats')
          .values({ id: claim.seatId, tenant: claim.tenant, instance_id: this.options.instanceId, speakers: claim.speakers ? 1 : 0, taken_at_ms: nowMs })
          .execute();
      }
      return outcome;
    });
  }

  async release(seatId: string): Promise<void> {
    await this.db.deleteFrom('realtime_seats').where('id', '=', seatId).execute();
  }

  async releaseSeatsOfDeadInstances(): Promise<number> {
    const { numDeletedRows } = await this.db.deleteFrom('realtime_seats').where(seatOfDeadInstance).executeTakeFirst();
    return Number(numDeletedRows);
  }

  async held(tenant: string, nowMs: number): Promise<HeldSeats> {
    return count(this.db, tenant, nowMs);
  }
}

const seatOfDeadInstance = sql<boolean>`instance_id NOT IN (SELECT id FROM service_instances)`;

async function count(db: StoreDb, tenant: string, nowMs: number): Promise<HeldSeats> {
  // `WHERE speakers` reads the BOOLEAN on PostgreSQL and the 0/1 on SQLite alike.
  const row = await db
    .selectFrom('realtime_seats')
    .select([sql<number>`count(*)`.as('sessions'), sql<number>`count(*) FILTER (WHERE speakers)`.as('speaker_sessions')])
    .where('tenant', '=', tenant)
    .where('instance_id', 'in', (eb) => eb.selectFrom('service_instances').select('id').where('expires_at_ms', '>', nowMs))
    .executeTakeFirstOrThrow();
  return { sessions: Number(row.sessions), speakerSessions: Number(row.speaker_sessions) };
}
