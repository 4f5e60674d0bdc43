// The webhook outbox in SQLite (table webhook_deliveries, migration 3). Rows are inserted by
// SqliteJobStore.succeed in the job's own transaction; this class claims and updates them.
import type { Database, Statement } from 'better-sqlite3';
import type { AttemptRecord, DeliveryState, WebhookDelivery, WebhookOutbox } from '../webhook-outbox.js';

interface DeliveryRow {
  event_id: string;
  job_id: string;
  key_id: string;
  secret_version: number;
  url: string;
  body: string;
  state: string;
  attempts: number;
  next_attempt_at_ms: number | null;
  last_attempt_at_ms: number | null;
  last_status: string | null;
  lease_owner: string | null;
  lease_expires_at_ms: number | null;
  created_at_ms: number;
}

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
      return toDelivery(select.get(row.event_id)!);
    });
    // IMMEDIATE: the read and the lease are one step under the write lock.
    this.claimTransaction = (...args) => claim.immediate(...args);
    this.record = db.prepare(`UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at_ms = @now,
        last_status = @summary, state = @state, next_attempt_at_ms = @next, lease_owner = NULL, lease_expires_at_ms = NULL
      WHERE event_id = @id AND lease_owner = @worker AND state = 'pending'`);
    this.selectByJob = db.prepare('SELECT * FROM webhook_deliveries WHERE job_id = ?');
  }

  claimDue(workerId: string, nowMs: number, leaseMs: number): WebhookDelivery | null {
    return this.claimTransaction(workerId, nowMs, leaseMs);
  }

  recordAttempt(eventId: string, workerId: string, attempt: AttemptRecord, nowMs: number): boolean {
    const state: DeliveryState = attempt.delivered ? 'delivered' : attempt.nextAttemptAtMs === null ? 'failed' : 'pending';
    return (
      this.record.run({
        id: eventId,
        worker: workerId,
        now: nowMs,
        summary: attempt.summary,
        state,
        next: state === 'pending' ? attempt.nextAttemptAtMs : null,
      }).changes === 1
    );
  }

  abandonForKey(keyId: string, summary: string, _nowMs: number): number {
    // No attempt is made, so the attempt count and time stay as they were.
    return this.db
      .prepare(`UPDATE webhook_deliveries SET state = 'failed', last_status = ?, next_attempt_at_ms = NULL,
          lease_owner = NULL, lease_expires_at_ms = NULL
        WHERE key_id = ? AND state = 'pending'`)
      .run(summary, keyId).changes;
  }

  recoverAfterRestart(): number {
    // One server per database: every lease at start belongs to a process that died mid-attempt.
    return this.db
      .prepare(`UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at_ms = NULL WHERE lease_owner IS NOT NULL`)
      .run().changes;
  }

  nextDueAtMs(): number | null {
    const row = this.db
      .prepare<[], { due: number | null }>(`SELECT MIN(next_attempt_at_ms) AS due FROM webhook_deliveries WHERE state = 'pending'`)
      .get();
    return row?.due ?? null;
  }

  forJob(jobId: string): WebhookDelivery | null {
    const row = this.selectByJob.get(jobId);
    return row ? toDelivery(row) : null;
  }
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    eventId: row.event_id,
    jobId: row.job_id,
    keyId: row.key_id,
    secretVersion: row.secret_version,
    url: row.url,
    body: row.body,
    state: row.state as DeliveryState,
    attempts: row.attempts,
    nextAttemptAtMs: row.next_attempt_at_ms,
    lastAttemptAtMs: row.last_attempt_at_ms,
    lastStatus: row.last_status,
    createdAtMs: row.created_at_ms,
  };
}
