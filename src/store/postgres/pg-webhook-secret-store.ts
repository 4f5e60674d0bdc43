// Webhook signing secrets in PostgreSQL, each version sealed under the master key; behaves as
// sqlite/sqlite-webhook-secret-store.ts does, with the pure parts shared through
// ../webhook-secret-record.ts. Where SQLite takes its single write lock, create and rotate here lock
// the API key's row: two admin commands for one key (in any processes) run one after the other, so
// they cannot both pick the same version or both find no active secret.
import { isPublicKeyId } from '../api-key-secret.js';
import { openSigningKey, sealNewVersion, secretRefusal, secretSummaryOf, supersededAt, type SecretRow, type SecretSummaryRow } from '../webhook-secret-record.js';
import type { WebhookSecretStore, WebhookSecretSummary } from '../webhook-secret-store.js';
import type { PostgresDatabase } from './database.js';

import type { Queryable } from './queryable.js';
export class PgWebhookSecretStore implements WebhookSecretStore {
  constructor(
    private readonly db: PostgresDatabase,
    private readonly masterKey: Buffer,
  ) {}

  async create(keyId: string, nowMs: number): Promise<{ secret: string; version: number }> {
    return this.db.transaction(async (client) => {
      await lockUsableKey(client, keyId);
      const active = await activeVersionOf(client, keyId);
      if (active !== null) throw secretRefusal.alreadyActive(keyId, active);
      return this.insertNext(client, keyId, nowMs);
    });
  }

  async rotate(keyId: string, nowMs: number): Promise<{ secret: string; version: number }> {
    return this.db.transaction(async (client) => {
      await lockUsableKey(client, keyId);
      const active = await activeVersionOf(client, keyId);
      if (active === null) throw secretRefusal.nothingToRotate(keyId);
      const { supersededAtMs, usableUntilMs } = supersededAt(nowMs);
      await client.query(
        `UPDATE webhook_secrets SET superseded_at_ms = $1, usable_until_ms = $2
          WHERE key_id = $3 AND version = $4 AND superseded_at_ms IS NULL`,
        [supersededAtMs, usableUntilMs, keyId, active],
      );
      return this.insertNext(client, keyId, nowMs);
    });
  }

  async list(keyId: string, nowMs: number): Promise<WebhookSecretSummary[]> {
    await requireKnownKey(this.db, keyId);
    const { rows } = await this.db.query<SecretSummaryRow>(
      'SELECT version, created_at_ms, superseded_at_ms, usable_until_ms FROM webhook_secrets WHERE key_id = $1 ORDER BY version',
      [keyId],
    );
    return rows.map((row) => secretSummaryOf(row, nowMs));
  }

  async activeVersion(keyId: string, _nowMs: number): Promise<number | null> {
    return activeVersionOf(this.db, keyId);
  }

  async signingKey(keyId: string, version: number, nowMs: number): Promise<Buffer | null> {
    const { rows } = await this.db.query<SecretRow>('SELECT * FROM webhook_secrets WHERE key_id = $1 AND version = $2', [keyId, version]);
    return rows[0] ? openSigningKey(this.masterKey, keyId, rows[0], nowMs) : null;
  }

  private async insertNext(client: Queryable, keyId: string, nowMs: number): Promise<{ secret: string; version: number }> {
    const { rows } = await client.query<{ next: number }>('SELECT coalesce(max(version), 0) + 1 AS next FROM webhook_secrets WHERE key_id = $1', [keyId]);
    const version = rows[0].next;
    const { secret, sealed } = sealNewVersion(this.masterKey, keyId, version);
    await client.query(
      'INSERT INTO webhook_secrets (key_id, version, ciphertext, iv, auth_tag, created_at_ms) VALUES ($1, $2, $3, $4, $5, $6)',
      [keyId, version, sealed.ciphertext, sealed.iv, sealed.authTag, nowMs],
    );
    return { secret, version };
  }
}

async function activeVersionOf(db: Queryable, keyId: string): Promise<number | null> {
  const { rows } = await db.query<{ version: number }>('SELECT version FROM webhook_secrets WHERE key_id = $1 AND superseded_at_ms IS NULL', [keyId]);
  return rows[0]?.version ?? null;
}

/**
 * Locks the key's row until the transaction ends; refuses unknown and revoked keys. NO KEY UPDATE:
 * it serializes secret changes without blocking rows elsewhere that merely reference the key.
 */
async function lockUsableKey(client: Queryable, keyId: string): Promise<void> {
  const row = await requireKnownKey(client, keyId, 'FOR NO KEY UPDATE');
  if (row.revoked_at !== null) throw secretRefusal.revokedKey(keyId);
}

async function requireKnownKey(db: Queryable, keyId: string, lock = ''): Promise<{ revoked_at: string | null }> {
  const { rows } = isPublicKeyId(keyId) ? await db.query<{ revoked_at: string | null }>(`SELECT revoked_at FROM api_keys WHERE id = $1 ${lock}`, [keyId]) : { rows: [] };
  if (!rows[0]) throw secretRefusal.unknownKey(keyId);
  return rows[0];
}
