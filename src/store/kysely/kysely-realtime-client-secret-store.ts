// Realtime client secrets (see ../realtime-client-secret-store.ts): one implementation for SQLite and
// PostgreSQL, on Kysely (store-db.ts). A claim is one conditional UPDATE (still unused, not expired)
// returning the key: PostgreSQL re-checks the WHERE on the row it locked after a concurrent claim
// commits, and SQLite runs the statement under its write lock, so two starts presenting one secret,
// in any processes, never both get it. No transaction spans two statements.
import { newClientSecret, presentedClientSecretSha256 } from '../realtime-client-secret-record.js';
import type { RealtimeClientSecretStore } from '../realtime-client-secret-store.js';
import type { StoreDb } from './store-schema.js';

export class KyselyRealtimeClientSecretStore implements RealtimeClientSecretStore {
  constructor(private readonly db: StoreDb) {}

  async mint(keyId: string, nowMs: number, expiresAtMs: number): Promise<string> {
    await this.sweep(nowMs);
    const { secret, sha256 } = newClientSecret();
    await this.db
      .insertInto('realtime_client_secrets')
      .values({ secret_sha256: sha256, key_id: keyId, expires_at_ms: expiresAtMs, used_at_ms: null, created_at_ms: nowMs })
      .execute();
    return secret;
  }

  async claim(presented: string, nowMs: number): Promise<string | null> {
    const sha256 = presentedClientSecretSha256(presented);
    if (!sha256) return null;
    const row = await this.db
      .updateTable('realtime_client_secrets')
      .set({ used_at_ms: nowMs })
      .where('secret_sha256', '=', sha256)
      .where('used_at_ms', 'is', null)
      .where('expires_at_ms', '>', nowMs)
      .returning('key_id')
      .executeTakeFirst();
    return row?.key_id ?? null;
  }

  async sweep(nowMs: number): Promise<number> {
    const { numDeletedRows } = await this.db.deleteFrom('realtime_client_secrets').where('expires_at_ms', '<=', nowMs).executeTakeFirst();
    return Number(numDeletedRows);
  }
}
