// The webhook outbox in SQLite (table webhook_deliveries, migration 3). Rows are inserted by
// SqliteJobStore.succeed in the job's own transaction; this class claims and updates them.
import { leaseOfDeadInstance } from '../instance-record.js';
import type { Database, Statement } from 'better-sqlite3';
import { afterAttempt, deliveryOf, type DeliveryRow } from '../webhook-delivery-record.js';
import type { AttemptRecord, WebhookDelivery, WebhookOutbox } from '../webhook-outbox.js';

export class SqliteWebhookOutbox implements WebhookOutbox {
  private readonly claimTransaction: (workerId: string, nowMs: number, leaseMs: number) => WebhookDelivery | null;
  private readonly record: Statement<[Record<string, unknown>]>;
  private readonly selectByJob: Statement<[string], DeliveryRow>;

  constructor(private readonly db: Database) {
    const due = db.prepare<[number, number], DeliveryRow>(`SELECT * FROM webhook_deliveries
      WHERE state = 'pending' AND next_attempt_at_ms <= ? AND (lease_expires_at_ms IS NULL OR lease_expires_at_ms <= ?)
      ORDER BY next_attempt_at_ms, created_at_ms LIMIT 1`);
    const lease = db.prepare('UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at_ms = ? WHERE event_id = ?');
    const select = db.prepare<[string], DeliveryRow>('SELECT * FROM webhook_deliveries WHERE event_id = ?');
    const claim = db.transaction((workerId: string, nowMs: number, leaseMs: number) => {
      const row = due.get(nowMs, nowMs);
      if (!row) return null;
      lease.run(workerId, nowMs + leaseMs, row.event_id);
      return deliveryOf(select.get(row.event_id)!);
    });
    // IMMEDIATE: the read and the lease are one step under the write lock.
    this.claimTransaction = (...args) => claim.immediate(...args);
    this.record = db.prepare(`UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at_ms = @now,
        last_status = @summary, state = @state, next_attempt_at_ms = @next, lease_owner = NULL, lease_expires_at_ms = NULL
      WHERE event_id = @id AND lease_owner = @worker AND state = 'pending'`);
    this.selectByJob = db.prepare('SELECT * FROM webhook_deliveries WHERE job_id = ?');
  }

  async claimDue(workerId: string, nowMs: number, leaseMs: number): Promise<WebhookDelivery | null> {
    return this.claimTransaction(workerId, nowMs, leaseMs);
  }

  async recordAttempt(eventId: string, workerId: string, attempt: AttemptRecord, nowMs: number): Promise<boolean> {
    const { state, nextAttemptAtMs } = afterAttempt(attempt);
    return (
      this.record.run({
        id: eventId,
        worker: workerId,
        now: nowMs,
        summary: attempt.summary,
        state,
        next: nextAttemptAtMs,
      }).changes === 1
    );
  }

  async abandonForKey(keyId: string, summary: string, _nowMs: number): Promise<number> {
    // No attempt is made, so the attempt count and time stay as they were.
    return this.db
      .prepare(`UPDATE webhook_deliveries SET state = 'failed', last_status = ?, next_attempt_at_ms = NULL,
          lease_owner = NULL, lease_expires_at_ms = NULL
        WHERE key_id = ? AND state = 'pending'`)
      .run(summary, keyId).changes;
  }

  async releaseLeasesOfDeadInstances(): Promise<number> {
    return this.db
      .prepare(`UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at_ms = NULL WHERE lease_owner IS NOT NULL AND ${leaseOfDeadInstance('webhook_deliveries')}`)
      .run().changes;
  }

  async nextDueAtMs(): Promise<number | null> {
    const row = this.db
      .prepare<[], { due: number | null }>(`SELECT MIN(next_attempt_at_ms) AS due FROM webhook_deliveries WHERE state = 'pending'`)
      .get();
    return row?.due ?? null;
  }

  async forJob(jobId: string): Promise<WebhookDelivery | null> {
    const row = this.selectByJob.get(jobId);
    return row ? deliveryOf(row) : null;
  }
}
