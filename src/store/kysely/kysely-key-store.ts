// API keys and their dictionaries (see key-store.ts): one implementation for SQLite and PostgreSQL,
// on Kysely (store-db.ts). See ../api-key-secret.ts for the key format; validation, defaults and row
// mapping are in ../key-record.ts. Every change but the first key is one statement.
import { sql } from 'kysely';
import { isPublicKeyId, parsePresentedKey } from '../api-key-secret.js';
import { keyNotFound, keyPatchColumns, keyRecordOf, newKeyRow, presentedKeyMatches, type NewKeyRow } from '../key-record.js';
import type { ApiKeyRecord, CreateKeyOptions, KeyPatch, KeyStore } from '../key-store.js';
import { validateDictionaryTerms, validateLanguageFamily } from '../key-validation.js';
import { immediate } from './immediate.js';
import { onPostgresDb } from './store-db.js';
import type { StoreDb } from './store-schema.js';

export class KyselyKeyStore implements KeyStore {
  constructor(private readonly db: StoreDb) {}

  async create(options: CreateKeyOptions = {}, now = new Date()): Promise<{ key: string; record: ApiKeyRecord }> {
    const { key, row } = newKeyRow(options, now);
    return { key, record: await insertKey(this.db, row) };
  }

  async createFirstKey(persist: (key: string) => void, options: CreateKeyOptions = {}): Promise<string | null> {
    return immediate(this.db, async (trx) => {
      // SQLite's `begin immediate` already excludes other writers. On PostgreSQL this lock, held to
      // COMMIT, excludes other writers of api_keys (another process's first key, a `keys create`)
      // while still letting readers through.
      if (onPostgresDb(trx)) await sql`LOCK TABLE api_keys IN SHARE ROW EXCLUSIVE MODE`.execute(trx);
      if (await trx.selectFrom('api_keys').select('id').limit(1).executeTakeFirst()) return null;
      const { key, row } = newKeyRow(options, new Date());
      await insertKey(trx, row);
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
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .$if(tenant !== undefined, (query) => query.where('tenant', '=', tenant!))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(keyRecordOf);
  }

  async update(id: string, patch: KeyPatch): Promise<ApiKeyRecord> {
    const changes = keyPatchColumns(patch);
    if (Object.keys(changes).length === 0) return this.require(id);
    const row = isPublicKeyId(id) ? await this.db.updateTable('api_keys').set(changes).where('id', '=', id).returningAll().executeTakeFirst() : undefined;
    if (!row) throw keyNotFound(id);
    return keyRecordOf(row);
  }

  async revoke(id: string, now = new Date()): Promise<boolean> {
    if (!isPublicKeyId(id)) throw keyNotFound(id);
    const { numUpdatedRows } = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now.toISOString() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (numUpdatedRows === 1n) return true;
    await this.require(id);
    return false;
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('api_keys')
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async setDictionary(keyId: string, language: string, terms: string[], now = new Date()): Promise<void> {
    const family = validateLanguageFamily(language);
    const cleaned = validateDictionaryTerms(terms);
    // Inserted only if the key exists, in one statement: no row written means no such key.
    const written = isPublicKeyId(keyId)
      ? await this.db
          .insertInto('key_dictionaries')
          .columns(['key_id', 'language', 'terms', 'updated_at'])
          .expression((eb) =>
            eb
              .selectFrom('api_keys')
              .select(['id', eb.val(family).as('language'), eb.val(JSON.stringify(cleaned)).as('terms'), eb.val(now.toISOString()).as('updated_at')])
              .where('id', '=', keyId),
          )
          .onConflict((conflict) =>
            conflict.columns(['key_id', 'language']).doUpdateSet((eb) => ({ terms: eb.ref('excluded.terms'), updated_at: eb.ref('excluded.updated_at') })),
          )
          .executeTakeFirst()
      : undefined;
    if (!written || written.numInsertedOrUpdatedRows === 0n) throw keyNotFound(keyId);
  }

  async getDictionary(keyId: string, language: string): Promise<string[]> {
    const row = await this.db.selectFrom('key_dictionaries').select('terms').where('key_id', '=', keyId).where('language', '=', language).executeTakeFirst();
    return row ? (JSON.parse(row.terms) as string[]) : [];
  }

  private async selectKey(id: string) {
    return (await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  }

  private async require(id: string): Promise<ApiKeyRecord> {
    const record = await this.get(id);
    if (!record) throw keyNotFound(id);
    return record;
  }
}

async function insertKey(db: StoreDb, row: NewKeyRow): Promise<ApiKeyRecord> {
  return keyRecordOf(await db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow());
}
