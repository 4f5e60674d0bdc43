// Idempotency-Key records, keyed by (tenant, key) and kept 24 hours: one implementation for SQLite
// and PostgreSQL, on Kysely (store-db.ts opens it over either database); what a claim answers is
// in ../idempotency-record.ts.
//
// A claim is one atomic statement on both: INSERT ... ON CONFLICT DO UPDATE ... WHERE expired, which
// takes over the row only when it has expired (PostgreSQL locks and re-reads the conflicting row
// before the WHERE; SQLite runs the statement under its write lock). Whoever does not get the row
// reads it. No transaction spans two statements, so nothing here waits on another process's lock
// between statements or holds one across an await.
//
// A stored answer's body is content (a transcript): sealed under the tenant's data key, bound to its
// (tenant, key) row; headers and status stay plain.
import type { ContentSealer } from '../content-sealer.js';
import { existingClaimState, IDEMPOTENCY_RETENTION_MS, responseColumns } from '../idempotency-record.js';
import type { IdempotencyBegin, IdempotencyStore, IdempotencyStoreOptions, StoredResponse } from '../idempotency-store.js';
import type { StoreDb } from './store-schema.js';

/**
 * Between our failed claim and our read, the holder may release the row (or sweep it): then we
 * claim again. Each round needs another caller to delete the row in that gap, so a handful is plenty.
 */
const CLAIM_ROUNDS = 5;

export const idempotencyBodyAad = (tenant: string, key: string) => `idempotency_records.response_body:${tenant}:${key}`;

export class KyselyIdempotencyStore implements IdempotencyStore {
  private readonly owner: string | null;

  constructor(
    private readonly db: StoreDb,
    private readonly sealer: ContentSealer,
    options: IdempotencyStoreOptions = {},
  ) {
    this.owner = options.owner ?? null;
  }

  async begin(tenant: string, key: string, fingerprint: string, now = new Date()): Promise<IdempotencyBegin> {
    const nowMs = now.getTime();
    for (let round = 1; ; round++) {
      const claimed = await this.db
        .insertInto('idempotency_records')
        .values({ tenant, key, fingerprint, state: 'in_progress', created_at_ms: nowMs, owner: this.owner })
        .onConflict((conflict) =>
          conflict
            .columns(['tenant', 'key'])
            .doUpdateSet((eb) => ({
              fingerprint: eb.ref('excluded.fingerprint'),
              state: 'in_progress',
              created_at_ms: eb.ref('excluded.created_at_ms'),
              owner: eb.ref('excluded.owner'),
              response_status: null,
              response_headers: null,
              response_body: null,
            }))
            // Expired (isExpired in idempotency-record.ts): the key is free again after 24 hours.
            .where('idempotency_records.created_at_ms', '<=', nowMs - IDEMPOTENCY_RETENTION_MS),
        )
        .executeTakeFirst();
      if (claimed.numInsertedOrUpdatedRows === 1n) return { state: 'started' };
      const row = await this.db
        .selectFrom('idempotency_records')
        .select(['fingerprint', 'state', 'response_status', 'response_headers', 'response_body', 'created_at_ms'])
        .where('tenant', '=', tenant)
        .where('key', '=', key)
        .executeTakeFirst();
      // Unexpired: the claim above would have taken it over otherwise (nothing moves created_at_ms back).
      if (row) {
        const body = await this.sealer.openNullable(tenant, idempotencyBodyAad(tenant, key), row.response_body);
        return existingClaimState({ ...row, response_body: body }, fingerprint);
      }
      if (round >= CLAIM_ROUNDS) throw new Error(`idempotency key claim for '${key}' kept losing to concurrent releases`);
    }
  }

  async hasResponse(tenant: string, key: string, now = new Date()): Promise<boolean> {
    const row = await this.db
      .selectFrom('idempotency_records')
      .select('state')
      .where('tenant', '=', tenant)
      .where('key', '=', key)
      .where('state', '=', 'completed')
      .where('created_at_ms', '>', now.getTime() - IDEMPOTENCY_RETENTION_MS)
      .executeTakeFirst();
    return row !== undefined;
  }

  async complete(tenant: string, key: string, response: StoredResponse): Promise<void> {
    const { status, headers, body } = responseColumns(response);
    const sealed = await this.sealer.sealText(tenant, idempotencyBodyAad(tenant, key), body);
    await this.db
      .updateTable('idempotency_records')
      .set({ state: 'completed', response_status: status, response_headers: headers, response_body: sealed })
      .where('tenant', '=', tenant)
      .where('key', '=', key)
      .where('state', '=', 'in_progress')
      .execute();
  }

  async release(tenant: string, key: string): Promise<void> {
    await this.db.deleteFrom('idempotency_records').where('tenant', '=', tenant).where('key', '=', key).where('state', '=', 'in_progress').execute();
  }

  async sweep(now = new Date()): Promise<number> {
    const { numDeletedRows } = await this.db
      .deleteFrom('idempotency_records')
      .where('created_at_ms', '<=', now.getTime() - IDEMPOTENCY_RETENTION_MS)
      .executeTakeFirst();
    return Number(numDeletedRows);
  }

  async releaseClaimsOfDeadInstances(): Promise<number> {
    const { numDeletedRows } = await this.db
      .deleteFrom('idempotency_records')
      .where('state', '=', 'in_progress')
      .where((eb) =>
        eb.or([
          eb('owner', 'is', null),
          eb.not(eb.exists(eb.selectFrom('service_instances').select('id').whereRef('service_instances.id', '=', 'idempotency_records.owner'))),
        ]),
      )
      .executeTakeFirst();
    return Number(numDeletedRows);
  }
}
