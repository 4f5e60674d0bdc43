// Idempotency-Key records in SQLite, keyed by (tenant, key) and kept 24 hours; what a claim answers
// is shared with the PostgreSQL store (idempotency-record.ts).
import type { Database, Statement } from 'better-sqlite3';
import { existingClaimState, IDEMPOTENCY_RETENTION_MS, isExpired, responseColumns, type IdempotencyRow } from '../idempotency-record.js';
import type { IdempotencyBegin, IdempotencyStore, IdempotencyStoreOptions, StoredResponse } from '../idempotency-store.js';

export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly select: Statement<[string, string], IdempotencyRow>;
  private readonly claim: Statement<[string, string, string, number, string | null]>;
  private readonly store: Statement<[number, string, string, string, string]>;
  private readonly remove: Statement<[string, string]>;
  private readonly removeOlder: Statement<[number]>;
  private readonly removeOrphaned: Statement<[]>;
  private readonly beginTransaction: (tenant: string, key: string, fingerprint: string, nowMs: number) => IdempotencyBegin;

  constructor(db: Database, options: IdempotencyStoreOptions = {}) {
    const owner = options.owner ?? null;
    this.select = db.prepare(`SELECT fingerprint, state, response_status, response_headers, response_body, created_at_ms
      FROM idempotency_records WHERE tenant = ? AND key = ?`);
    // An expired record is replaced in place: the key is free again after 24 hours.
    this.claim = db.prepare(`INSERT OR REPLACE INTO idempotency_records (tenant, key, fingerprint, state, created_at_ms, owner)
      VALUES (?, ?, ?, 'in_progress', ?, ?)`);
    this.store = db.prepare(`UPDATE idempotency_records
      SET state = 'completed', response_status = ?, response_headers = ?, response_body = ?
      WHERE tenant = ? AND key = ? AND state = 'in_progress'`);
    this.remove = db.prepare(`DELETE FROM idempotency_records WHERE tenant = ? AND key = ? AND state = 'in_progress'`);
    this.removeOlder = db.prepare('DELETE FROM idempotency_records WHERE created_at_ms <= ?');
    this.removeOrphaned = db.prepare(`DELETE FROM idempotency_records WHERE state = 'in_progress'
      AND (owner IS NULL OR owner NOT IN (SELECT id FROM service_instances))`);

    const begin = db.transaction((tenant: string, key: string, fingerprint: string, nowMs: number): IdempotencyBegin => {
      const row = this.select.get(tenant, key);
      if (!row || isExpired(row.created_at_ms, nowMs)) {
        this.claim.run(tenant, key, fingerprint, nowMs, owner);
        return { state: 'started' };
      }
      return existingClaimState(row, fingerprint);
    });
    // IMMEDIATE takes the write lock before the read, so two connections cannot both see "absent".
    this.beginTransaction = (...args) => begin.immediate(...args);
  }

  async begin(tenant: string, key: string, fingerprint: string, now = new Date()): Promise<IdempotencyBegin> {
    return this.beginTransaction(tenant, key, fingerprint, now.getTime());
  }

  async hasResponse(tenant: string, key: string, now = new Date()): Promise<boolean> {
    const row = this.select.get(tenant, key);
    return row !== undefined && row.state === 'completed' && !isExpired(row.created_at_ms, now.getTime());
  }

  async complete(tenant: string, key: string, response: StoredResponse): Promise<void> {
    const { status, headers, body } = responseColumns(response);
    this.store.run(status, headers, body, tenant, key);
  }

  async release(tenant: string, key: string): Promise<void> {
    this.remove.run(tenant, key);
  }

  async sweep(now = new Date()): Promise<number> {
    return this.removeOlder.run(now.getTime() - IDEMPOTENCY_RETENTION_MS).changes;
  }

  async releaseClaimsOfDeadInstances(): Promise<number> {
    return this.removeOrphaned.run().changes;
  }
}
