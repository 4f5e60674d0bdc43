// API keys and their dictionaries (see key-store.ts): one implementation for SQLite and PostgreSQL,
// on Kysely (store-db.ts). See ../api-key-secret.ts for the key format; validation, defaults and row
// mapping are in ../key-record.ts. Every change but the first key is one statement.
import { sql } from 'kysely';

import { type ApiKeyRecord } from '../../domain/api-keys.js';
import { isPublicKeyId, parsePresentedKey } from '../api-key-secret.js';
import type { ContentSealer } from '../content-sealer.js';
import { erasedTenantDigest } from '../erased-tenants.js';
import {
  keyNotFound,
  keyPatchColumns,
  keyRecordOf,
  keyTermsOf,
  namedKeyId,
  type NewKeyRow,
  newKeyRow,
  presentedKeyMatches,
  revokedAtOf,
} from '../key-record.js';
import { type CreateKeyOptions, KEY_USE_RESOLUTION_MS, type KeyPatch, type KeyStore, type RotatedKey } from '../key-store.js';
import { KeyStoreError } from '../key-store-error.js';
import { validateDictionaryTerms, validateLanguageFamily, validateTenant } from '../key-validation.js';
import { immediate } from './immediate.js';
import { onPostgresDb } from './store-db.js';
import type { StoreDb } from './store-schema.js';

/** A dictionary's sealed identity: its key and language, so a sealed list moved onto another key or language does not open. */
export const dictionaryAad = (keyId: string, language: string) => `key_dictionaries.terms:${keyId}:${language}`;

export class KyselyKeyStore implements KeyStore {
  constructor(
    private readonly db: StoreDb,
    /** Dictionaries (clinical terms, perhaps names) are sealed under the key's tenant's data key. */
    private readonly sealer: ContentSealer,
    /** Epoch milliseconds: a key past its scheduled revocation is read as revoked from then on (the service passes its clock). */
    private readonly clock: () => number = Date.now,
  ) {}

  async create(options: CreateKeyOptions = {}, now = new Date()): Promise<{ key: string; record: ApiKeyRecord }> {
    const { key, row } = newKeyRow(options, now);
    await refuseErasedTenant(this.db, row.tenant);
    return { key, record: keyRecordOf(await insertKey(this.db, row), this.clock()) };
  }

  async createFirstKey(persist: (key: string) => void, options: CreateKeyOptions = {}): Promise<string | null> {
    return immediate(this.db, async (trx) => {
      // SQLite's `begin immediate` already excludes other writers. On PostgreSQL this lock, held to
      // COMMIT, excludes other writers of api_keys (another process's first key, a `keys create`)
      // while still letting readers through.
      if (onPostgresDb(trx)) await sql`LOCK TABLE api_keys IN SHARE ROW EXCLUSIVE MODE`.execute(trx);
      if (await trx.selectFrom('api_keys').select('id').limit(1).executeTakeFirst()) return null;
      const { key, row } = newKeyRow(options, new Date());
      await refuseErasedTenant(trx, row.tenant);
      await insertKey(trx, row);
      // A throw here rolls the key back: no key exists that nobody holds.
      persist(key);
      return key;
    });
  }

  async createForTenant(tenant: string, now = new Date(this.clock())): Promise<{ key: string; record: ApiKeyRecord }> {
    const nowMs = now.getTime();
    await refuseErasedTenant(this.db, validateTenant(tenant));
    return immediate(this.db, async (trx) => {
      const rows = await trx
        .selectFrom('api_keys')
        .selectAll()
        .where('tenant', '=', validateTenant(tenant))
        .orderBy('created_at')
        .orderBy('id')
        .$if(onPostgresDb(trx), (query) => query.forUpdate())
        .execute();
      // Revoking the only key must not shed its terms: a revoked model is still the operator's word.
      const model = rows.find((row) => revokedAtOf(row, nowMs) === null) ?? rows.at(-1);
      if (!model) {
        const { key, row } = newKeyRow({ tenant }, now);
        return { key, record: keyRecordOf(await insertKey(trx, row), nowMs) };
      }
      const terms = keyRecordOf(model, nowMs);
      const { key, row } = newKeyRow(keyTermsOf(terms), now);
      const created = await insertKey(trx, { ...row, billing_state: terms.billingState });
      await copyKeyBillingTerms(trx, model.id, created.id);
      return { key, record: keyRecordOf(created, nowMs) };
    });
  }

  async authenticate(presented: string): Promise<ApiKeyRecord | null> {
    // The format is public, so rejecting a malformed string early reveals nothing.
    const parsed = typeof presented === 'string' ? parsePresentedKey(presented) : null;
    if (!parsed) return null;
    const row = await this.selectKey(parsed.id);
    // Compared even when there is no row, so an unknown id costs what a known one does.
    const nowMs = this.clock();
    return presentedKeyMatches(row, parsed.secretSha256, nowMs) ? keyRecordOf(row!, nowMs) : null;
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    if (!isPublicKeyId(id)) return null;
    const row = await this.selectKey(id);
    return row ? keyRecordOf(row, this.clock()) : null;
  }

  async list(tenant?: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .$if(tenant !== undefined, (query) => query.where('tenant', '=', tenant!))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const nowMs = this.clock();
    return rows.map((row) => keyRecordOf(row, nowMs));
  }

  async update(id: string, patch: KeyPatch): Promise<ApiKeyRecord> {
    const changes = keyPatchColumns(patch);
    if (Object.keys(changes).length === 0) return this.require(id);
    const row = isPublicKeyId(id) ? await this.db.updateTable('api_keys').set(changes).where('id', '=', id).returningAll().executeTakeFirst() : undefined;
    if (!row) throw keyNotFound(id);
    return keyRecordOf(row, this.clock());
  }

  async revoke(id: string, now = new Date(this.clock())): Promise<boolean> {
    if (!isPublicKeyId(id)) throw keyNotFound(id);
    const at = now.toISOString();
    const { numUpdatedRows } = await this.db
      .updateTable('api_keys')
      // A scheduled revocation carried out late (the sweeper's pass) is dated when the key stopped working.
      .set({ revoked_at: sql<string>`CASE WHEN revoke_at IS NOT NULL AND revoke_at < ${at} THEN revoke_at ELSE ${at} END` })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (numUpdatedRows === 1n) return true;
    await this.require(id);
    return false;
  }

  async rotate(id: string, revokeAt: Date, now = new Date(this.clock())): Promise<RotatedKey> {
    if (!isPublicKeyId(id)) throw keyNotFound(id);
    const nowMs = now.getTime();
    return immediate(this.db, async (trx) => {
      const row = await trx
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', id)
        .$if(onPostgresDb(trx), (query) => query.forUpdate())
        .executeTakeFirst();
      if (!row || revokedAtOf(row, nowMs) !== null) throw keyNotFound(id);
      if (row.revoke_at !== null)
        throw new KeyStoreError('invalid_argument', `key ${namedKeyId(id)} is being rotated already: it is revoked at ${row.revoke_at}`);
      const old = keyRecordOf(row, nowMs);
      const { key, row: fresh } = newKeyRow(keyTermsOf(old), now);
      // A paused key's successor is paused too: rotating is no way around an operator's pause.
      const created = await insertKey(trx, { ...fresh, billing_state: old.billingState });
      // Sealed again for the new key: each list is bound to its key.
      const sealer = this.sealer.within(trx);
      const dictionaries = await trx.selectFrom('key_dictionaries').select(['language', 'terms', 'updated_at']).where('key_id', '=', id).execute();
      for (const { language, terms, updated_at } of dictionaries) {
        const plain = await sealer.openText(row.tenant, dictionaryAad(id, language), terms);
        await trx
          .insertInto('key_dictionaries')
          .values({ key_id: created.id, language, terms: await sealer.sealText(created.tenant, dictionaryAad(created.id, language), plain), updated_at })
          .execute();
      }
      await moveKeyBilling(trx, id, created.id);
      const rotated = await trx
        .updateTable('api_keys')
        .set({ revoke_at: revokeAt.toISOString() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { key, record: keyRecordOf(created, nowMs), rotated: keyRecordOf(rotated, nowMs) };
    });
  }

  async recordUse(id: string, now = new Date(this.clock())): Promise<boolean> {
    if (!isPublicKeyId(id)) return false;
    const at = now.toISOString();
    // ISO times of one length compare as text (the columns are byte-ordered on PostgreSQL too).
    const staleBefore = new Date(now.getTime() - KEY_USE_RESOLUTION_MS).toISOString();
    const { numUpdatedRows } = await this.db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('revoke_at', 'is', null), eb('revoke_at', '>', at)]))
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
      .executeTakeFirst();
    return numUpdatedRows === 1n;
  }

  async dueRevocations(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select('id')
      .where('revoked_at', 'is', null)
      .where('revoke_at', 'is not', null)
      .where('revoke_at', '<=', new Date(this.clock()).toISOString())
      .orderBy('revoke_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
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
    const key = isPublicKeyId(keyId) ? await this.db.selectFrom('api_keys').select('tenant').where('id', '=', keyId).executeTakeFirst() : undefined;
    if (!key) throw keyNotFound(keyId);
    const sealed = await this.sealer.sealText(key.tenant, dictionaryAad(keyId, family), JSON.stringify(cleaned));
    // Inserted only if the key still exists, in one statement: no row written means no such key.
    const written = await this.db
      .insertInto('key_dictionaries')
      .columns(['key_id', 'language', 'terms', 'updated_at'])
      .expression((eb) =>
        eb
          .selectFrom('api_keys')
          .select(['id', eb.val(family).as('language'), eb.val(sealed).as('terms'), eb.val(now.toISOString()).as('updated_at')])
          .where('id', '=', keyId),
      )
      .onConflict((conflict) =>
        conflict.columns(['key_id', 'language']).doUpdateSet((eb) => ({ terms: eb.ref('excluded.terms'), updated_at: eb.ref('excluded.updated_at') })),
      )
      .executeTakeFirst();
    if (written.numInsertedOrUpdatedRows === 0n) throw keyNotFound(keyId);
  }

  async getDictionary(keyId: string, language: string): Promise<string[]> {
    const row = await this.db
      .selectFrom('key_dictionaries')
      .innerJoin('api_keys', 'api_keys.id', 'key_dictionaries.key_id')
      .select(['key_dictionaries.terms', 'api_keys.tenant'])
      .where('key_dictionaries.key_id', '=', keyId)
      .where('key_dictionaries.language', '=', language)
      .executeTakeFirst();
    return row ? (JSON.parse(await this.sealer.openText(row.tenant, dictionaryAad(keyId, language), row.terms)) as string[]) : [];
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

/** An erased tenant's id is not used again: its content would be refused (../erased-tenants.ts). */
async function refuseErasedTenant(db: StoreDb, tenant: string): Promise<void> {
  const erased = await db.selectFrom('erased_tenants').select('tenant_digest').where('tenant_digest', '=', erasedTenantDigest(tenant)).executeTakeFirst();
  if (erased) throw new KeyStoreError('invalid_argument', `tenant ${tenant} was erased: its id is not used again`);
}

async function insertKey(db: StoreDb, row: NewKeyRow) {
  return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The model key's billing overrides, copied; a prepaid model's copy starts with no credit (granted per key, never duplicated). */
async function copyKeyBillingTerms(trx: StoreDb, from: string, to: string): Promise<void> {
  const billing = await trx.selectFrom('key_billing').select(['overrides', 'credit_granted_micros']).where('key_id', '=', from).executeTakeFirst();
  if (!billing) return;
  const credit = billing.credit_granted_micros === null ? null : 0;
  await trx.insertInto('key_billing').values({ key_id: to, overrides: billing.overrides, credit_granted_micros: credit }).execute();
}

/**
 * A rotated key's billing goes to its successor: the same overrides, and the prepaid credit it has
 * left (granted less everything it was charged), which the old key gives up, so the overlap never
 * spends the credit twice (the old key's work within the allowance goes on; its priced work is refused).
 */
async function moveKeyBilling(trx: StoreDb, from: string, to: string): Promise<void> {
  const billing = await trx
    .selectFrom('key_billing')
    .select(['overrides', 'credit_granted_micros'])
    .where('key_id', '=', from)
    .$if(onPostgresDb(trx), (query) => query.forUpdate())
    .executeTakeFirst();
  if (!billing) return;
  let moved: number | null = null;
  if (billing.credit_granted_micros !== null) {
    const { spent } = await trx
      .selectFrom('usage_key_costs')
      .select(sql<number>`CAST(coalesce(sum(cost_micros), 0) AS BIGINT)`.as('spent'))
      .where('key_id', '=', from)
      .executeTakeFirstOrThrow();
    const granted = Number(billing.credit_granted_micros);
    moved = Math.max(0, granted - Number(spent));
    await trx
      .updateTable('key_billing')
      .set({ credit_granted_micros: granted - moved })
      .where('key_id', '=', from)
      .execute();
  }
  await trx.insertInto('key_billing').values({ key_id: to, overrides: billing.overrides, credit_granted_micros: moved }).execute();
}
