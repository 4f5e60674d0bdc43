// Idempotency-Key records in SQLite, keyed by (tenant, key) and kept 24 hours.
import type { Database, Statement } from 'better-sqlite3';
import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from '../idempotency-store.js';

/** The contract: idempotency keys are retained 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

interface RecordRow {
  fingerprint: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  created_at_ms: number;
}

export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly select: Statement<[string, string], RecordRow>;
  private readonly claim: Statement<[string, string, string, number]>;
  private readonly store: Statement<[number, string, string, string, string]>;
  private readonly remove: Statement<[string, string]>;
  private readonly removeOlder: Statement<[number]>;
  private readonly removeAllInProgress: Statement<[]>;
  private readonly beginTransaction: (tenant: string, key: string, fingerprint: string, nowMs: number) => IdempotencyBegin;

  constructor(db: Database) {
    this.select = db.prepare(`SELECT fingerprint, state, response_status, response_headers, response_body, created_at_ms
      FROM idempotency_records WHERE tenant = ? AND key = ?`);
    // An expired record is replaced in place: the key is free again after 24 hours.
    this.claim = db.prepare(`INSERT OR REPLACE INTO idempotency_records (tenant, key, fingerprint, state, created_at_ms)
      VALUES (?, ?, ?, 'in_progress', ?)`);
    this.store = db.prepare(`UPDATE idempotency_records
      SET state = 'completed', response_status = ?, response_headers = ?, response_body = ?
      WHERE tenant = ? AND key = ? AND state = 'in_progress'`);
    this.remove = db.prepare(`DELETE FROM idempotency_records WHERE tenant = ? AND key = ? AND state = 'in_progress'`);
    this.removeOlder = db.prepare('DELETE FROM idempotency_records WHERE created_at_ms <= ?');
    this.removeAllInProgress = db.prepare(`DELETE FROM idempotency_records WHERE state = 'in_progress'`);

    const begin = db.transaction((tenant: string, key: string, fingerprint: string, nowMs: number): IdempotencyBegin => {
      const row = this.select.get(tenant, key);
      if (!row || isExpired(row.created_at_ms, nowMs)) {
        this.claim.run(tenant, key, fingerprint, nowMs);
        return { state: 'started' };
      }
      if (row.fingerprint !== fingerprint) return { state: 'conflict' };
      if (row.state === 'in_progress') return { state: 'in_progress' };
      return { state: 'completed', response: toResponse(row) };
    });
    // IMMEDIATE takes the write lock before the read, so two connections cannot both see "absent".
    this.beginTransaction = (...args) => begin.immediate(...args);
  }

  begin(tenant: string, key: string, fingerprint: string, now = new Date()): IdempotencyBegin {
    return this.beginTransaction(tenant, key, fingerprint, now.getTime());
  }

  complete(tenant: string, key: string, response: StoredResponse): void {
    this.store.run(response.status, JSON.stringify(response.headers), response.body, tenant, key);
  }

  release(tenant: string, key: string): void {
    this.remove.run(tenant, key);
  }

  sweep(now = new Date()): number {
    return this.removeOlder.run(now.getTime() - IDEMPOTENCY_RETENTION_MS).changes;
  }

  /**
   * Frees every claim still in progress. Call once when the server starts, before it accepts
   * requests: with one server per database, such a claim belongs to a process that died mid-request,
   * and keeping it would answer the client's retry with 409 idempotency_in_progress for 24 hours.
   */
  releaseAbandoned(): number {
    return this.removeAllInProgress.run().changes;
  }
}

function isExpired(createdAtMs: number, nowMs: number): boolean {
  return nowMs - createdAtMs >= IDEMPOTENCY_RETENTION_MS;
}

function toResponse(row: RecordRow): StoredResponse {
  return {
    status: row.response_status!,
    headers: JSON.parse(row.response_headers!) as Record<string, string>,
    body: row.response_body!,
  };
}
