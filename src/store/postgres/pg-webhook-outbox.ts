// The webhook outbox in PostgreSQL (table webhook_deliveries); behaves as
// sqlite/sqlite-webhook-outbox.ts does, with the pure parts shared through ../webhook-delivery-record.ts.
// Rows are inserted by PgJobStore.succeed in the job's own transaction; this class claims and
// updates them. Delivery workers in many processes claim at once: claimDue locks the row it picks
// `FOR UPDATE SKIP LOCKED` and leases it in the same statement, so no event is handed out twice
// and claimers do not queue behind each other's locks.
import { leaseOfDeadInstance } from '../instance-record.js';
import { afterAttempt, deliveryOf, type DeliveryRow } from '../webhook-delivery-record.js';
import type { AttemptRecord, WebhookDelivery, WebhookOutbox } from '../webhook-outbox.js';
import type { PostgresDatabase } from './database.js';

export class PgWebhookOutbox implements WebhookOutbox {
  constructor(private readonly db: PostgresDatabase) {}

  async claimDue(workerId: string, nowMs: number, leaseMs: number): Promise<WebhookDelivery | null> {
    const { rows } = await this.db.query<DeliveryRow>(
      `UPDATE webhook_deliveries SET lease_owner = $1, lease_expires_at_ms = $2
        WHERE event_id = (
          SELECT event_id FROM webhook_deliveries
            WHERE state = 'pending' AND next_attempt_at_ms <= $3 AND (lease_expires_at_ms IS NULL OR lease_expires_at_ms <= $3)
            ORDER BY next_attempt_at_ms, created_at_ms LIMIT 1
            FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [workerId, nowMs + leaseMs, nowMs],
    );
    return rows[0] ? deliveryOf(rows[0]) : null;
  }

  async recordAttempt(eventId: string, workerId: string, attempt: AttemptRecord, nowMs: number): Promise<boolean> {
    const { state, nextAttemptAtMs } = afterAttempt(attempt);
    const { rowCount } = await this.db.query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at_ms = $1, last_status = $2, state = $3,
          next_attempt_at_ms = $4, lease_owner = NULL, lease_expires_at_ms = NULL
        WHERE event_id = $5 AND lease_owner = $6 AND state = 'pending'`,
      [nowMs, attempt.summary, state, nextAttemptAtMs, eventId, workerId],
    );
    return rowCount === 1;
  }

  async abandonForKey(keyId: string, summary: string, _nowMs: number): Promise<number> {
    // No attempt is made, so the attempt count and time stay as they were.
    const { rowCount } = await this.db.query(
      `UPDATE webhook_deliveries SET state = 'failed', last_status = $1, next_attempt_at_ms = NULL,
          lease_owner = NULL, lease_expires_at_ms = NULL
        WHERE key_id = $2 AND state = 'pending'`,
      [summary, keyId],
    );
    return rowCount ?? 0;
  }

  async releaseLeasesOfDeadInstances(): Promise<number> {
    const { rowCount } = await this.db.query(
      `UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at_ms = NULL WHERE lease_owner IS NOT NULL AND ${leaseOfDeadInstance('webhook_deliveries')}`,
    );
    return rowCount ?? 0;
  }

  async nextDueAtMs(): Promise<number | null> {
    const { rows } = await this.db.query<{ due: number | null }>(
      `SELECT MIN(next_attempt_at_ms) AS due FROM webhook_deliveries WHERE state = 'pending'`,
    );
    return rows[0]?.due ?? null;
  }

  async forJob(jobId: string): Promise<WebhookDelivery | null> {
    const { rows } = await this.db.query<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE job_id = $1', [jobId]);
    return rows[0] ? deliveryOf(rows[0]) : null;
  }
}
