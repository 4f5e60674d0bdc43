// The webhook outbox (table webhook_deliveries): one implementation for SQLite and PostgreSQL, on
// Kysely (store-db.ts); the pure parts are in ../webhook-delivery-record.ts. Rows are inserted by the
// job store's `succeed` in the job's own transaction; this class claims and updates them.
//
// A claim is one statement on both: UPDATE ... WHERE event_id = (the due row) RETURNING *. On
// PostgreSQL, where delivery workers of many processes claim at once, the inner SELECT locks the row
// FOR UPDATE SKIP LOCKED, so no event is handed out twice and claimers do not queue behind each
// other's locks; SQLite runs the whole statement under its write lock.
import { afterAttempt, deliveryOf, deliverySummaryOf } from '../webhook-delivery-record.js';
import type { AttemptRecord, WebhookDelivery, WebhookDeliverySummary, WebhookOutbox } from '../webhook-outbox.js';
import { leaseOfDeadInstance } from './lease-of-dead-instance.js';
import { onPostgresDb } from './store-db.js';
import type { StoreDb } from './store-schema.js';

export class KyselyWebhookOutbox implements WebhookOutbox {
  private readonly postgres: boolean;

  constructor(private readonly db: StoreDb) {
    this.postgres = onPostgresDb(db);
  }

  async claimDue(workerId: string, nowMs: number, leaseMs: number): Promise<WebhookDelivery | null> {
    const row = await this.db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: workerId, lease_expires_at_ms: nowMs + leaseMs })
      .where('event_id', '=', (eb) =>
        eb
          .selectFrom('webhook_deliveries')
          .select('event_id')
          .where('state', '=', 'pending')
          .where('next_attempt_at_ms', '<=', nowMs)
          .where((due) => due.or([due('lease_expires_at_ms', 'is', null), due('lease_expires_at_ms', '<=', nowMs)]))
          .orderBy('next_attempt_at_ms')
          .orderBy('created_at_ms')
          .limit(1)
          .$if(this.postgres, (query) => query.forUpdate().skipLocked()),
      )
      .returningAll()
      .executeTakeFirst();
    return row ? deliveryOf(row) : null;
  }

  async recordAttempt(eventId: string, workerId: string, attempt: AttemptRecord, nowMs: number): Promise<boolean> {
    const { state, nextAttemptAtMs } = afterAttempt(attempt);
    const { numUpdatedRows } = await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        last_attempt_at_ms: nowMs,
        last_status: attempt.summary,
        state,
        next_attempt_at_ms: nextAttemptAtMs,
        lease_owner: null,
        lease_expires_at_ms: null,
        redelivery_requested_at_ms: null,
      }))
      .where('event_id', '=', eventId)
      .where('lease_owner', '=', workerId)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return numUpdatedRows === 1n;
  }

  async abandonForKey(keyId: string, summary: string, _nowMs: number): Promise<number> {
    // No attempt is made, so the attempt count and time stay as they were.
    const { numUpdatedRows } = await this.db
      .updateTable('webhook_deliveries')
      .set({ state: 'failed', last_status: summary, next_attempt_at_ms: null, lease_owner: null, lease_expires_at_ms: null, redelivery_requested_at_ms: null })
      .where('key_id', '=', keyId)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return Number(numUpdatedRows);
  }

  async releaseLeasesOfDeadInstances(): Promise<number> {
    const { numUpdatedRows } = await this.db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: null, lease_expires_at_ms: null })
      .where('lease_owner', 'is not', null)
      .where(leaseOfDeadInstance('webhook_deliveries'))
      .executeTakeFirst();
    return Number(numUpdatedRows);
  }

  async nextDueAtMs(): Promise<number | null> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min('next_attempt_at_ms').as('due'))
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return row?.due ?? null;
  }

  async forJob(jobId: string): Promise<WebhookDelivery | null> {
    const row = await this.db.selectFrom('webhook_deliveries').selectAll().where('job_id', '=', jobId).executeTakeFirst();
    return row ? deliveryOf(row) : null;
  }

  async forEvent(eventId: string): Promise<WebhookDelivery | null> {
    const row = await this.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).executeTakeFirst();
    return row ? deliveryOf(row) : null;
  }

  async recentForKeys(keyIds: readonly string[], limit: number): Promise<WebhookDeliverySummary[]> {
    if (keyIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('key_id', 'in', keyIds)
      .orderBy('created_at_ms', 'desc')
      .orderBy('event_id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(deliverySummaryOf);
  }

  async redeliver(eventId: string, nowMs: number): Promise<boolean> {
    // Due at once: the worker's next pass claims it like any due event.
    const { numUpdatedRows } = await this.db
      .updateTable('webhook_deliveries')
      .set({ state: 'pending', next_attempt_at_ms: nowMs, redelivery_requested_at_ms: nowMs, lease_owner: null, lease_expires_at_ms: null })
      .where('event_id', '=', eventId)
      .where('state', 'in', ['delivered', 'failed'])
      .executeTakeFirst();
    return numUpdatedRows === 1n;
  }
}
