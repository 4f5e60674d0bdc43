// Realtime seats in SQLite (see realtime-seat-store.ts). A take is one IMMEDIATE transaction: the
// write lock is taken before the count, so two processes on one file cannot both take a last seat.
import type { Database } from 'better-sqlite3';
import { seatOutcome, type HeldSeats, type RealtimeSeatStore, type SeatClaim, type SeatLimits, type SeatOutcome, type SeatStoreOptions } from '../realtime-seat-store.js';

const LIVE = 'instance_id IN (SELECT id FROM service_instances WHERE expires_at_ms > ?)';

export class SqliteRealtimeSeatStore implements RealtimeSeatStore {
  constructor(
    private readonly db: Database,
    private readonly options: SeatStoreOptions,
  ) {}

  async take(claim: SeatClaim, limits: SeatLimits, nowMs: number): Promise<SeatOutcome> {
    const take = this.db.transaction((): SeatOutcome => {
      this.db.prepare('DELETE FROM realtime_seats WHERE tenant = ? AND instance_id NOT IN (SELECT id FROM service_instances)').run(claim.tenant);
      const outcome = seatOutcome(this.count(claim.tenant, nowMs), limits, claim.speakers);
      if (outcome === 'taken') {
        this.db
          .prepare('INSERT INTO realtime_seats (id, tenant, instance_id, speakers, taken_at_ms) VALUES (?, ?, ?, ?, ?)')
          .run(claim.seatId, claim.tenant, this.options.instanceId, claim.speakers ? 1 : 0, nowMs);
      }
      return outcome;
    });
    return take.immediate();
  }

  async release(seatId: string): Promise<void> {
    this.db.prepare('DELETE FROM realtime_seats WHERE id = ?').run(seatId);
  }

  async releaseSeatsOfDeadInstances(): Promise<number> {
    return this.db.prepare('DELETE FROM realtime_seats WHERE instance_id NOT IN (SELECT id FROM service_instances)').run().changes;
  }

  async held(tenant: string, nowMs: number): Promise<HeldSeats> {
    return this.count(tenant, nowMs);
  }

  private count(tenant: string, nowMs: number): HeldSeats {
    const row = this.db
      .prepare<[string, number], { sessions: number; speakerSessions: number | null }>(
        `SELECT count(*) AS sessions, sum(speakers) AS speakerSessions FROM realtime_seats WHERE tenant = ? AND ${LIVE}`,
      )
      .get(tenant, nowMs)!;
    return { sessions: row.sessions, speakerSessions: row.speakerSessions ?? 0 };
  }
}
