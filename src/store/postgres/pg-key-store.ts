// API keys and their dictionaries in PostgreSQL; behaves as sqlite/sqlite-key-store.ts does, with the
// pure parts shared through ../key-record.ts. See ../api-key-secret.ts for the key format.
import { isPublicKeyId, parsePresentedKey } from '../api-key-secret.js';
import { keyNotFound, keyPatchColumns, keyRecordOf, newKeyRow, presentedKeyMatches, type KeyRow, type NewKeyRow } from '../key-record.js';
import type { ApiKeyRecord, CreateKeyOptions, KeyPatch, KeyStore } from '../key-store.js';
import { validateDictionaryTerms, validateLanguageFamily } from '../key-validation.js';
import type { PostgresDatabase } from './database.js';

import type { Queryable } from './queryable.js';
export class PgKeyStore implements KeyStore {
  constructor(private readonly db: PostgresDatabase) {}

  async create(options: CreateKeyOptions = {}, now = new Date()): Promise<{ key: string; record: ApiKeyRecord }> {
    const { key, row } = newKeyRow(options, now);
    return { key, record: await insertKey(this.db, row) };
  }

  async createFirstKey(persist: (key: string) => void, options: CreateKeyOptions = {}): Promise<string | null> {
    return this.db.transaction(async (client) => {
      // Held to COMMIT: it excludes other writers of api_keys (another process's first key, a
      // `keys create`) while still letting readers through, as SQLite's IMMEDIATE transaction does.
      await client.query('LOCK TABLE api_keys IN SHARE ROW EXCLUSIVE MODE');
      const { rows } = await client.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM api_keys) AS any');
      if (rows[0].any) return null;
      const { key, row } = newKeyRow(options, new Date());
      await insertKey(client, row);
      // A throw here rolls the key back: no key exists that nobody holds.
      persist(key);
      return key;
    });
  }

  async authenticate(presented: string): Promise<ApiKeyRecord | null> {
    // The format is public, so rejecting a malformed string early reveals nothing.
    const parsed = typeof presented === 'string' ? parsePresentedKey(presented) : null;
    if (!parsed) return null;
    const row = await this.selectKey(parsed.id);
    // Compared even when there is no row, so an unknown id costs what a known one does.
    return presentedKeyMatches(row, parsed.secretSha256) ? keyRecordOf(row!) : null;
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    if (!isPublicKeyId(id)) return null;
    const row = await this.selectKey(id);
    return row ? keyRecordOf(row) : null;
  }

  async list(tenant?: string): Promise<ApiKeyRecord[]> {
    const { rows } =
      tenant === undefined
        ? await this.db.query<KeyRow>('SELECT * FROM api_keys ORDER BY created_at, id')
        : await this.db.query<KeyRow>('SELECT * FROM api_keys WHERE tenant = $1 ORDER BY created_at, id', [tenant]);
    return rows.map(keyRecordOf);
  }

  async update(id: string, patch: KeyPatch): Promise<ApiKeyRecord> {
    const changes = keyPatchColumns(patch);
    const columns = Object.keys(changes);
    if (columns.length === 0) return this.require(id);
    // Column names come from keyPatchColumns' fixed list, never from the caller.
    const assignments = columns.map((column, index) => `${column} = $${index + 2}`).join(', ');
    const { rows } = isPublicKeyId(id)
      ? await this.db.query<KeyRow>(`UPDATE api_keys SET ${assignments} WHERE id = $1 RETURNING *`, [id, ...Object.values(changes)])
      : { rows: [] };
    if (rows.length === 0) throw keyNotFound(id);
    return keyRecordOf(rows[0]);
  }

  async revoke(id: string, now = new Date()): Promise<boolean> {
    if (!isPublicKeyId(id)) throw keyNotFound(id);
    const { rowCount } = await this.db.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now.toISOString(), id]);
    if (rowCount === 1) return true;
    await this.require(id);
    return false;
  }

  async count(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>('SELECT count(*) AS n FROM api_keys');
    return rows[0].n;
  }

  async setDictionary(keyId: string, language: string, terms: string[], now = new Date()): Promise<void> {
    const family = validateLanguageFamily(language);
    const cleaned = validateDictionaryTerms(terms);
    // Inserted only if the key exists, in one statement: no row written means no such key.
    const { rowCount } = isPublicKeyId(keyId)
      ? await this.db.query(
          `INSERT INTO key_dictionaries (key_id, language, terms, updated_at)
            SELECT id, $2, $3, $4 FROM api_keys WHERE id = $1
            ON CONFLICT (key_id, language) DO UPDATE SET terms = excluded.terms, updated_at = excluded.updated_at`,
          [keyId, family, JSON.stringify(cleaned), now.toISOString()],
        )
      : { rowCount: 0 };
    if (rowCount === 0) throw keyNotFound(keyId);
  }

  async getDictionary(keyId: string, language: string): Promise<string[]> {
    const { rows } = await this.db.query<{ terms: string }>('SELECT terms FROM key_dictionaries WHERE key_id = $1 AND language = $2', [keyId, language]);
    return rows.length > 0 ? (JSON.parse(rows[0].terms) as string[]) : [];
  }

  private async selectKey(id: string): Promise<KeyRow | null> {
    const { rows } = await this.db.query<KeyRow>('SELECT * FROM api_keys WHERE id = $1', [id]);
    return rows[0] ?? null;
  }

  private async require(id: string): Promise<ApiKeyRecord> {
    const record = await this.get(id);
    if (!record) throw keyNotFound(id);
    return record;
  }
}

async function insertKey(db: Queryable, row: NewKeyRow): Promise<ApiKeyRecord> {
  const { rows } = await db.query<KeyRow>(
    `INSERT INTO api_keys
      (id, tenant, secret_sha256, plan, entitlements, default_language, billing_state, retention_hours, rate_limit_per_minute, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
    [row.id, row.tenant, row.secret_sha256, row.plan, row.entitlements, row.default_language, row.billing_state, row.retention_hours, row.rate_limit_per_minute, row.created_at],
  );
  return keyRecordOf(rows[0]);
}
