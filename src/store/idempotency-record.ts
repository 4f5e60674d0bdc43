// The pure half of an IdempotencyStore, shared by its implementations: the 24-hour retention, what
// an existing claim answers to a new request, and the stored response's columns. No database here.
import type { IdempotencyBegin, StoredResponse } from './idempotency-store.js';

/** The contract: idempotency keys are retained 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** A row of `idempotency_records` (without its tenant and key). */
export interface IdempotencyRow {
  fingerprint: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  created_at_ms: number;
}

/** An expired record counts as absent: the key is free again 24 hours after the first request. */
export function isExpired(createdAtMs: number, nowMs: number): boolean {
  return nowMs - createdAtMs >= IDEMPOTENCY_RETENTION_MS;
}

/** The answer to a request that finds an unexpired claim on its key. */
export function existingClaimState(row: IdempotencyRow, fingerprint: string): Exclude<IdempotencyBegin, { state: 'started' }> {
  if (row.fingerprint !== fingerprint) return { state: 'conflict' };
  if (row.state === 'in_progress') return { state: 'in_progress' };
  return { state: 'completed', response: storedResponseOf(row) };
}

export function responseColumns(response: StoredResponse): { status: number; headers: string; body: string } {
  return { status: response.status, headers: JSON.stringify(response.headers), body: response.body };
}

function storedResponseOf(row: IdempotencyRow): StoredResponse {
  return {
    status: row.response_status!,
    headers: JSON.parse(row.response_headers!) as Record<string, string>,
    body: row.response_body!,
  };
}
