// Webhook signing secrets (see webhook-secret-store.ts): one implementation for SQLite and
// PostgreSQL, on Kysely (store-db.ts), each version sealed under the master key (secret-cipher.ts).
// A row is active while superseded_at_ms is null; a rotation stamps the active row with its own
// deadline (usable_until_ms), which later rotations never move; a revocation stamps every version
// that still signs with revoked_at_ms (and supersedes the active one), after which none signs.
// Sealing, opening, summaries and refusals are in ../webhook-secret-record.ts.
//
// create, rotate and revoke are `immediate` transactions: on SQLite the write lock is taken up front; on
// PostgreSQL the API key's row is locked FOR NO KEY UPDATE (it serializes secret changes without
// blocking rows elsewhere that merely reference the key). Either way two admin commands for one key,
// in any processes, run one after the other: they cannot both pick the same version or both find
// no active secret.
import { sql } from 'kysely';

import { isPublicKeyId } from '../api-key-secret.js';
import { revokedAtOf } from '../key-record.js';
import {
  maySign,
  openSigningKey,
  resealedUnderActive,
  sealNewVersion,
  secretRefusal,
  secretSummaryOf,
  signingOrder,
  supersededAt,
} from '../webhook-secret-record.js';
import type { WebhookSecretStore, WebhookSecretSummary } from '../webhook-secret-store.js';
import { immediate } from './immediate.js';
import { onPostgresDb } from './store-db.js';
import type { StoreDb } from './store-schema.js';

export class KyselyWebhookSecretStore implements WebhookSecretStore {
  /** The active master key first. */
  private readonly masterKeys: readonly Buffer[];

  constructor(
    private readonly db: StoreDb,
    masterKey: Buffer,
    /** Master keys a rotation still knows: they open what they sealed, never seal. */
    previousMasterKeys: readonly Buffer[] = [],
  ) {
    this.masterKeys = [masterKey, ...previousMasterKeys];
  }

  async resealUnderActiveKey(): Promise<number> {
    let resealed = 0;
    for (const row of await this.db.selectFrom('webhook_secrets').selectAll().orderBy('key_id').orderBy('version').execute()) {
      const sealed = resealedUnderActive(this.masterKeys, row.key_id, row);
      if (!sealed) continue;
      const { numUpdatedRows } = await this.db
        .updateTable('webhook_secrets')
        .set({ ciphertext: sealed.ciphertext, iv: sealed.iv, auth_tag: sealed.authTag })
        .where('key_id', '=', row.key_id)
        .where('version', '=', row.version)
        .where('iv', '=', row.iv)
        .executeTakeFirst();
      resealed += Number(numUpdatedRows);
    }
    return resealed;
  }

  async create(keyId: string, nowMs: number): Promise<{ secret: string; version: number }> {
    return immediate(this.db, async (trx) => {
      await lockUsableKey(trx, keyId, nowMs);
      const active = await activeVersionOf(trx, keyId);
      if (active !== null) throw secretRefusal.alreadyActive(keyId, active);
      return this.insertNext(trx, keyId, nowMs);
    });
  }

  async rotate(keyId: string, nowMs: number): Promise<{ secret: string; version: number }> {
    return immediate(this.db, async (trx) => {
      await lockUsableKey(trx, keyId, nowMs);
      const active = await activeVersionOf(trx, keyId);
      if (active === null) throw secretRefusal.nothingToRotate(keyId);
      const { supersededAtMs, usableUntilMs } = supersededAt(nowMs);
      await trx
        .updateTable('webhook_secrets')
        .set({ superseded_at_ms: supersededAtMs, usable_until_ms: usableUntilMs })
        .where('key_id', '=', keyId)
        .where('version', '=', active)
        .where('superseded_at_ms', 'is', null)
        .execute();
      return this.insertNext(trx, keyId, nowMs);
    });
  }

  async revoke(keyId: string, nowMs: number): Promise<number[]> {
    return immediate(this.db, async (trx) => {
      // A revoked API key's secrets may be revoked too: the secret may have leaked with the key.
      await requireKnownKey(trx, keyId, onPostgresDb(trx));
      const rows = await trx
        .selectFrom('webhook_secrets')
        .select(['version', 'usable_until_ms', 'revoked_at_ms'])
        .where('key_id', '=', keyId)
        .where('revoked_at_ms', 'is', null)
        .orderBy('version')
        .execute();
      const versions = rows.filter((row) => maySign(row, nowMs)).map((row) => row.version);
      if (versions.length === 0) throw secretRefusal.nothingToRevoke(keyId);
      await trx
        .updateTable('webhook_secrets')
        .set((eb) => ({ revoked_at_ms: nowMs, superseded_at_ms: eb.fn.coalesce('superseded_at_ms', eb.val(nowMs)) }))
        .where('key_id', '=', keyId)
        .where('version', 'in', versions)
        .execute();
      return versions;
    });
  }

  async list(keyId: string, nowMs: number): Promise<WebhookSecretSummary[]> {
    await requireKnownKey(this.db, keyId);
    const rows = await this.db
      .selectFrom('webhook_secrets')
      .select(['version', 'created_at_ms', 'superseded_at_ms', 'usable_until_ms', 'revoked_at_ms'])
      .where('key_id', '=', keyId)
      .orderBy('version')
      .execute();
    return rows.map((row) => secretSummaryOf(row, nowMs));
  }

  async activeVersion(keyId: string, _nowMs: number): Promise<number | null> {
    return activeVersionOf(this.db, keyId);
  }

  async signingKey(keyId: string, version: number, nowMs: number): Promise<Buffer | null> {
    const row = await this.db.selectFrom('webhook_secrets').selectAll().where('key_id', '=', keyId).where('version', '=', version).executeTakeFirst();
    return row ? openSigningKey(this.masterKeys, keyId, row, nowMs) : null;
  }

  async signingKeys(keyId: string, nowMs: number): Promise<Array<{ version: number; key: Buffer }>> {
    const rows = await this.db.selectFrom('webhook_secrets').selectAll().where('key_id', '=', keyId).execute();
    return rows
      .filter((row) => maySign(row, nowMs))
      .sort(signingOrder)
      .flatMap((row) => {
        const key = openSigningKey(this.masterKeys, keyId, row, nowMs);
        return key ? [{ version: row.version, key }] : [];
      });
  }

  private async insertNext(trx: StoreDb, keyId: string, nowMs: number): Promise<{ secret: string; version: number }> {
    const { next } = await trx
      .selectFrom('webhook_secrets')
      .select(sql<number>`coalesce(max(version), 0) + 1`.as('next'))
      .where('key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    const version = Number(next);
    const { secret, sealed } = sealNewVersion(this.masterKeys[0]!, keyId, version);
    await trx
      .insertInto('webhook_secrets')
      .values({
        key_id: keyId,
        version,
        ciphertext: sealed.ciphertext,
        iv: sealed.iv,
        auth_tag: sealed.authTag,
        created_at_ms: nowMs,
        superseded_at_ms: null,
        usable_until_ms: null,
        revoked_at_ms: null,
      })
      .execute();
    return { secret, version };
  }
}

async function activeVersionOf(db: StoreDb, keyId: string): Promise<number | null> {
  const row = await db.selectFrom('webhook_secrets').select('version').where('key_id', '=', keyId).where('superseded_at_ms', 'is', null).executeTakeFirst();
  return row?.version ?? null;
}

/**
 * Locks the key's row until the transaction ends (PostgreSQL; SQLite holds its write lock); refuses
 * unknown keys and keys revoked at `nowMs` (a rotated one past its overlap too: revokedAtOf).
 */
async function lockUsableKey(trx: StoreDb, keyId: string, nowMs: number): Promise<void> {
  const row = await requireKnownKey(trx, keyId, onPostgresDb(trx));
  if (revokedAtOf(row, nowMs) !== null) throw secretRefusal.revokedKey(keyId);
}

async function requireKnownKey(db: StoreDb, keyId: string, lock = false): Promise<{ revoked_at: string | null; revoke_at: string | null }> {
  const row = isPublicKeyId(keyId)
    ? await db
        .selectFrom('api_keys')
        .select(['revoked_at', 'revoke_at'])
        .where('id', '=', keyId)
        .$if(lock, (query) => query.forNoKeyUpdate())
        .executeTakeFirst()
    : undefined;
  if (!row) throw secretRefusal.unknownKey(keyId);
  return row;
}
