// The pure half of a WebhookOutbox, shared by its implementations: the `webhook_deliveries` row, how
// a finished attempt moves it, and the row -> delivery mapping. No database here.
import type { AttemptRecord, DeliveryState, WebhookDelivery, WebhookDeliverySummary } from './webhook-outbox.js';

export interface DeliveryRow {
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
  redelivery_requested_at_ms: number | null;
}

/** The state an attempt leaves the event in, and when it is due next (only while still pending). */
export function afterAttempt(attempt: AttemptRecord): { state: DeliveryState; nextAttemptAtMs: number | null } {
  const state: DeliveryState = attempt.delivered ? 'delivered' : attempt.nextAttemptAtMs === null ? 'failed' : 'pending';
  return { state, nextAttemptAtMs: state === 'pending' ? attempt.nextAttemptAtMs : null };
}

export function deliveryOf(row: DeliveryRow): WebhookDelivery {
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
    redeliveryRequestedAtMs: row.redelivery_requested_at_ms,
  };
}

export function deliverySummaryOf(row: DeliveryRow): WebhookDeliverySummary {
  const { body, secretVersion: _pinned, ...metadata } = deliveryOf(row);
  return { ...metadata, eventType: eventTypeOf(body) };
}

/** The `type` of an event body; the rest of the body is never read here. */
function eventTypeOf(body: string): string {
  try {
    const type = (JSON.parse(body) as { type?: unknown }).type;
    return typeof type === 'string' ? type : 'unknown';
  } catch {
    return 'unknown';
  }
}
