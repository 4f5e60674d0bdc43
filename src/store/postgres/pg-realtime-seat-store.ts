// Realtime seats in PostgreSQL (see realtime-seat-store.ts). A take runs in a transaction holding an
// advisory lock on the tenant, so processes racing for a project's last seat take turns; other
// projects' starts do not wait.
import { seatOutcome, type HeldSeats, type RealtimeSeatStore, type SeatClaim, type SeatLimits, type SeatOutcome, type SeatStoreOptions } from '../realtime-seat-store.js';
import type { PostgresDatabase } from './database.js';

import type { Queryable } from './queryable.js';
/** Keeps the seat locks apart from other advisory locks (the migration lock's key is a bigint). */
const LOCK_CLASS = 'realtime_seats:';

export class PgRealtimeSeatStore implements RealtimeSeatStore {
  constructor(
    private readonly db: PostgresDatabase,
    private readonly options: SeatStoreOptions,
  ) {}

  async take(claim: SeatClaim, limits: SeatLimits, nowMs: number): Promise<SeatOutcome> {
    return this.db.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [LOCK_CLASS + claim.tenant]);
      await client.query('DELETE FROM realtime_seats WHERE tenant = $1 AND instance_id NOT IN (SELECT id FROM service_instances)', [claim.tenant]);
      const outcome = seatOutcome(await count(client, claim.tenant, nowMs), limits, claim.speakers);
      if (outcome === 'taken') {
        await client.query('INSERT INTO realtime_seats (id, tenant, instance_id, speakers, taken_at_ms) VALUES ($1, $2, $3, $4, $5)', [
          claim.seatId,
          claim.tenant,
          this.options.instanceId,
          claim.speakers,
          nowMs,
        ]);
      }
      return outcome;
    });
  }

  async release(seatId: string): Promise<void> {
    await this.db.query('DELETE FROM realtime_seats WHERE id = $1', [seatId]);
  }

  async releaseSeatsOfDeadInstances(): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM realtime_seats WHERE instance_id NOT IN (SELECT id FROM service_instances)');
    return rowCount ?? 0;
  }

  async held(tenant: string, nowMs: number): Promise<HeldSeats> {
    return count(this.db, tenant, nowMs);
  }
}

async function count(db: Queryable, tenant: string, nowMs: number): Promise<HeldSeats> {
  const { rows } = await db.query<{ sessions: string; speaker_sessions: string }>(
    `SELECT count(*) AS sessions, count(*) FILTER (WHERE speakers) AS speaker_sessions FROM realtime_seats
      WHERE tenant = $1 AND instance_id IN (SELECT id FROM service_instances WHERE expires_at_ms > $2)`,
    [tenant, nowMs],
  );
  return { sessions: Number(rows[0].sessions), speakerSessions: Number(rows[0].speaker_sessions) };
}
