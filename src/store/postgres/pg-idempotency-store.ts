// Idempotency-Key records in PostgreSQL, keyed by (tenant, key) and kept 24 hours; behaves as
// sqlite/sqlite-idempotency-store.ts does, with the pure parts shared through ../idempotency-record.ts.
// Many API processes share the table, so a claim is one atomic statement: INSERT ... ON CONFLICT,
// which takes over the row only when it has expired; whoever does not get the row reads it.
import { existingClaimState, IDEMPOTENCY_RETENTION_MS, responseColumns, type IdempotencyRow } from '../idempotency-record.js';
import type { IdempotencyBegin, IdempotencyStore, IdempotencyStoreOptions, StoredResponse } from '../idempotency-store.js';
import type { PostgresDatabase } from './database.js';

/**
 * Between our failed claim and our read, the holder may release the row (or sweep it): then we
 * claim again. Each round needs another process to delete the row in that gap, so a handful is plenty.
 */
const CLAIM_ROUNDS = 5;

export class PgIdempotencyStore implements IdempotencyStore {
  private readonly owner: string | null;

  constructor(
    private readonly db: PostgresDatabase,
    options: IdempotencyStoreOptions = {},
  ) {
    this.owner = options.owner ?? null;
  }

  async begin(tenant: string, key: string, fingerprint: string, now = new Date()): Promise<IdempotencyBegin> {
    const nowMs = now.getTime();
    for (let round = 1; ; round++) {
      // The conflicting row is locked and re-read before the WHERE: of two callers racing for an
      // expired row, the second sees the first's fresh claim and does not take it over.
      const claimed = await this.db.query(
        `INSERT INTO idempotency_records (tenant, key, fingerprint, state, created_at_ms, owner)
          VALUES ($1, $2, $3, 'in_progress', $4, $6)
          ON CONFLICT (tenant, key) DO UPDATE SET
            fingerprint = excluded.fingerprint, state = 'in_progress', created_at_ms = excluded.created_at_ms, owner = excluded.owner,
            response_status = NULL, response_headers = NULL, response_body = NULL
          WHERE $4 - idempotency_records.created_at_ms >= $5`,
        [tenant, key, fingerprint, nowMs, IDEMPOTENCY_RETENTION_MS, this.owner],
      );
      if (claimed.rowCount === 1) return { state: 'started' };
      const { rows } = await this.db.query<IdempotencyRow>(
        `SELECT fingerprint, state, response_status, response_headers, response_body, created_at_ms
          FROM idempotency_records WHERE tenant = $1 AND key = $2`,
        [tenant, key],
      );
      // Unexpired: the claim above would have taken it over otherwise (the read sees the row as
      // committed since, and nothing moves created_at_ms back).
      if (rows[0]) return existingClaimState(rows[0], fingerprint);
      if (round >= CLAIM_ROUNDS) throw new Error(`idempotency key claim for '${key}' kept losing to concurrent releases`);
    }
  }

  async hasResponse(tenant: string, key: string, now = new Date()): Promise<boolean> {
    const { rows } = await this.db.query(
      `SELECT 1 FROM idempotency_records WHERE tenant = $1 AND key = $2 AND state = 'completed' AND $3 - created_at_ms < $4`,
      [tenant, key, now.getTime(), IDEMPOTENCY_RETENTION_MS],
    );
    return rows.length > 0;
  }

  async complete(tenant: string, key: string, response: StoredResponse): Promise<void> {
    const { status, headers, body } = responseColumns(response);
    await this.db.query(
      `UPDATE idempotency_records SET state = 'completed', response_status = $1, response_headers = $2, response_body = $3
        WHERE tenant = $4 AND key = $5 AND state = 'in_progress'`,
      [status, headers, body, tenant, key],
    );
  }

  async release(tenant: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_records WHERE tenant = $1 AND key = $2 AND state = 'in_progress'`, [tenant, key]);
  }

  async sweep(now = new Date()): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM idempotency_records WHERE created_at_ms <= $1', [now.getTime() - IDEMPOTENCY_RETENTION_MS]);
    return rowCount ?? 0;
  }

  async releaseClaimsOfDeadInstances(): Promise<number> {
    const { rowCount } = await this.db.query(`DELETE FROM idempotency_records WHERE state = 'in_progress'
      AND (owner IS NULL OR NOT EXISTS (SELECT 1 FROM service_instances i WHERE i.id = idempotency_records.owner))`);
    return rowCount ?? 0;
  }
}
