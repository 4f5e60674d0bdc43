// Tenants' data keys (../tenant-keys.ts) in `tenant_data_keys`, on SQLite or PostgreSQL. Unwrapped
// keys are kept in memory for a short while only (CACHE_MS), so a KMS is not asked on every read and a
// key destroyed by another process stops opening content here soon after. Which version is current is
// read on every seal (one row by its key): a rotation or a destruction by another process holds at once,
// and a tenant erased meanwhile is refused before anything is sealed for it.
//
// Two processes creating a tenant's first key at once: both insert version 1 with ON CONFLICT DO
// NOTHING, then both read back the one row that won, so they seal under the same key. A key is never
// made for an erased tenant (../erased-tenants.ts): the record is looked at before the insert and
// again after it, and the erasure writes its record before it destroys the keys, so a creation racing
// it either sees the record or has its key destroyed by it.
import { randomBytes } from 'node:crypto';

import { erasedTenantDigest, TenantErasedError } from '../erased-tenants.js';
import type { KeyProvider, WrappedKey } from '../master-keys.js';
import { SealingError } from '../sealing-error.js';
import { type DataKey, dataKeyContext, type TenantKeys } from '../tenant-keys.js';
import { immediate } from './immediate.js';
import type { StoreDb } from './store-schema.js';

const CACHE_MS = 5 * 60_000;
const KEY_BYTES = 32;

type UnwrappedCache = Map<string, { key: Buffer; untilMs: number }>;

export class KyselyTenantKeys implements TenantKeys {
  constructor(
    private readonly db: StoreDb,
    /** Asked when a key is first wrapped or unwrapped, so commands that seal nothing never load a master key. */
    private readonly provider: () => KeyProvider,
    private readonly clock: () => number = Date.now,
    private readonly unwrapped: UnwrappedCache = new Map(),
  ) {}

  within(db: StoreDb): TenantKeys {
    return new KyselyTenantKeys(db, this.provider, this.clock, this.unwrapped);
  }

  async current(tenant: string): Promise<DataKey> {
    let row = await this.newestRow(tenant);
    if (!row) {
      if (await this.erased(tenant)) throw new TenantErasedError(tenant);
      const wrapped = await this.provider().wrap(randomBytes(KEY_BYTES), dataKeyContext(tenant, 1));
      await this.db
        .insertInto('tenant_data_keys')
        .values({ tenant, version: 1, master_key_id: wrapped.masterKeyId, wrapped: wrapped.wrapped, created_at_ms: this.clock() })
        .onConflict((conflict) => conflict.columns(['tenant', 'version']).doNothing())
        .execute();
      row = await this.newestRow(tenant);
      if (!row) throw new SealingError(`the data key of tenant ${tenant} was destroyed while it was being created`);
      if (await this.erased(tenant)) {
        await this.destroy(tenant);
        throw new TenantErasedError(tenant);
      }
    }
    return { version: row.version, key: await this.keyOf(tenant, row) };
  }

  async erase(tenant: string): Promise<number> {
    // The record first: from here on no process makes a key for the tenant again (see the top).
    await this.db
      .insertInto('erased_tenants')
      .values({ tenant_digest: erasedTenantDigest(tenant) })
      .onConflict((conflict) => conflict.column('tenant_digest').doNothing())
      .execute();
    return this.destroy(tenant);
  }

  async rotate(tenant: string): Promise<number> {
    if (await this.erased(tenant)) throw new TenantErasedError(tenant);
    // Two rotations racing: the loser's insert conflicts and it tries the next version.
    for (;;) {
      const version = ((await this.newestRow(tenant))?.version ?? 0) + 1;
      const wrapped = await this.provider().wrap(randomBytes(KEY_BYTES), dataKeyContext(tenant, version));
      const { numInsertedOrUpdatedRows } = await this.db
        .insertInto('tenant_data_keys')
        .values({ tenant, version, master_key_id: wrapped.masterKeyId, wrapped: wrapped.wrapped, created_at_ms: this.clock() })
        .onConflict((conflict) => conflict.columns(['tenant', 'version']).doNothing())
        .executeTakeFirst();
      if (numInsertedOrUpdatedRows === 1n) return version;
    }
  }

  async version(tenant: string, version: number): Promise<Buffer> {
    const cached = this.cached(tenant, version);
    if (cached) return cached;
    const row = await this.db
      .selectFrom('tenant_data_keys')
      .select(['version', 'master_key_id', 'wrapped'])
      .where('tenant', '=', tenant)
      .where('version', '=', version)
      .executeTakeFirst();
    if (!row) throw new SealingError(`tenant ${tenant} has no data key version ${version} (destroyed, or never created)`);
    return this.unwrap(tenant, row);
  }

  async destroy(tenant: string): Promise<number> {
    const { numDeletedRows } = await this.db.deleteFrom('tenant_data_keys').where('tenant', '=', tenant).executeTakeFirst();
    for (const context of this.unwrapped.keys()) if (context.startsWith(`${tenant}/`)) this.unwrapped.delete(context);
    return Number(numDeletedRows);
  }

  async rewrapUnderActiveKey(limit: number): Promise<{ found: number; rewrapped: number }> {
    const provider = this.provider();
    const rows = await this.db
      .selectFrom('tenant_data_keys')
      .select(['tenant', 'version', 'master_key_id', 'wrapped'])
      .where('master_key_id', '!=', provider.activeKeyId)
      .orderBy('tenant')
      .orderBy('version')
      .limit(limit)
      .execute();
    // Unwrapped and wrapped again before the transaction: a KMS round trip holds no lock.
    const rewraps: { row: (typeof rows)[number]; wrapped: WrappedKey }[] = [];
    for (const row of rows) {
      const context = dataKeyContext(row.tenant, row.version);
      const key = await provider.unwrap({ masterKeyId: row.master_key_id, wrapped: row.wrapped }, context);
      rewraps.push({ row, wrapped: await provider.wrap(key, context) });
      key.fill(0);
    }
    const rewrapped = await immediate(this.db, async (trx) => {
      let changed = 0;
      for (const { row, wrapped } of rewraps) {
        const { numUpdatedRows } = await trx
          .updateTable('tenant_data_keys')
          .set({ master_key_id: wrapped.masterKeyId, wrapped: wrapped.wrapped })
          .where('tenant', '=', row.tenant)
          .where('version', '=', row.version)
          .where('master_key_id', '=', row.master_key_id)
          .executeTakeFirst();
        changed += Number(numUpdatedRows);
      }
      return changed;
    });
    return { found: rows.length, rewrapped };
  }

  async masterKeyIdsInUse(): Promise<string[]> {
    const rows = await this.db.selectFrom('tenant_data_keys').select('master_key_id').distinct().orderBy('master_key_id').execute();
    return rows.map((row) => row.master_key_id);
  }

  private async newestRow(tenant: string) {
    return this.db
      .selectFrom('tenant_data_keys')
      .select(['version', 'master_key_id', 'wrapped'])
      .where('tenant', '=', tenant)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  private async erased(tenant: string): Promise<boolean> {
    const row = await this.db.selectFrom('erased_tenants').select('tenant_digest').where('tenant_digest', '=', erasedTenantDigest(tenant)).executeTakeFirst();
    return row !== undefined;
  }

  private cached(tenant: string, version: number): Buffer | null {
    const cached = this.unwrapped.get(dataKeyContext(tenant, version));
    return cached && cached.untilMs > this.clock() ? cached.key : null;
  }

  private async keyOf(tenant: string, row: { version: number; master_key_id: string; wrapped: Buffer }): Promise<Buffer> {
    return this.cached(tenant, row.version) ?? this.unwrap(tenant, row);
  }

  private async unwrap(tenant: string, row: { version: number; master_key_id: string; wrapped: Buffer }): Promise<Buffer> {
    const context = dataKeyContext(tenant, row.version);
    const key = await this.provider().unwrap({ masterKeyId: row.master_key_id, wrapped: row.wrapped }, context);
    this.unwrapped.set(context, { key, untilMs: this.clock() + CACHE_MS });
    return key;
  }
}
