// Tenants' data keys (../tenant-keys.ts) in `tenant_data_keys`, on SQLite or PostgreSQL. Unwrapped
// keys are kept in memory for a short while only (CACHE_MS), so a KMS is not asked on every read and a
// key destroyed by another process stops opening content here soon after.
//
// Two processes creating a tenant's first key at once: both insert version 1 with ON CONFLICT DO
// NOTHING, then both read back the one row that won, so they seal under the same key.
import { randomBytes } from 'node:crypto';

import type { KeyProvider, WrappedKey } from '../master-keys.js';
import { SealingError } from '../sealing-error.js';
import { type DataKey, dataKeyContext, type TenantKeys } from '../tenant-keys.js';
import { immediate } from './immediate.js';
import type { StoreDb } from './store-schema.js';

const CACHE_MS = 5 * 60_000;
const KEY_BYTES = 32;

interface KeyCache {
  unwrapped: Map<string, { key: Buffer; untilMs: number }>;
  currentVersion: Map<string, { version: number; untilMs: number }>;
}

export class KyselyTenantKeys implements TenantKeys {
  private readonly unwrapped: KeyCache['unwrapped'];
  private readonly currentVersion: KeyCache['currentVersion'];

  constructor(
    private readonly db: StoreDb,
    /** Asked when a key is first wrapped or unwrapped, so commands that seal nothing never load a master key. */
    private readonly provider: () => KeyProvider,
    private readonly clock: () => number = Date.now,
    cache: KeyCache = { unwrapped: new Map(), currentVersion: new Map() },
  ) {
    this.unwrapped = cache.unwrapped;
    this.currentVersion = cache.currentVersion;
  }

  within(db: StoreDb): TenantKeys {
    return new KyselyTenantKeys(db, this.provider, this.clock, { unwrapped: this.unwrapped, currentVersion: this.currentVersion });
  }

  async current(tenant: string): Promise<DataKey> {
    const known = this.currentVersion.get(tenant);
    if (known && known.untilMs > this.clock()) return { version: known.version, key: await this.version(tenant, known.version) };
    let row = await this.newestRow(tenant);
    if (!row) {
      const wrapped = await this.provider().wrap(randomBytes(KEY_BYTES), dataKeyContext(tenant, 1));
      await this.db
        .insertInto('tenant_data_keys')
        .values({ tenant, version: 1, master_key_id: wrapped.masterKeyId, wrapped: wrapped.wrapped, created_at_ms: this.clock() })
        .onConflict((conflict) => conflict.columns(['tenant', 'version']).doNothing())
        .execute();
      row = await this.newestRow(tenant);
      if (!row) throw new SealingError(`the data key of tenant ${tenant} was destroyed while it was being created`);
    }
    this.currentVersion.set(tenant, { version: row.version, untilMs: this.clock() + CACHE_MS });
    return { version: row.version, key: await this.unwrap(tenant, row) };
  }

  async rotate(tenant: string): Promise<number> {
    // Two rotations racing: the loser's insert conflicts and it tries the next version.
    for (;;) {
      const version = ((await this.newestRow(tenant))?.version ?? 0) + 1;
      const wrapped = await this.provider().wrap(randomBytes(KEY_BYTES), dataKeyContext(tenant, version));
      const { numInsertedOrUpdatedRows } = await this.db
        .insertInto('tenant_data_keys')
        .values({ tenant, version, master_key_id: wrapped.masterKeyId, wrapped: wrapped.wrapped, created_at_ms: this.clock() })
        .onConflict((conflict) => conflict.columns(['tenant', 'version']).doNothing())
        .executeTakeFirst();
      if (numInsertedOrUpdatedRows === 1n) {
        this.currentVersion.delete(tenant);
        return version;
      }
    }
  }

  async version(tenant: string, version: number): Promise<Buffer> {
    const cached = this.unwrapped.get(dataKeyContext(tenant, version));
    if (cached && cached.untilMs > this.clock()) return cached.key;
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
    this.currentVersion.delete(tenant);
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

  private async unwrap(tenant: string, row: { version: number; master_key_id: string; wrapped: Buffer }): Promise<Buffer> {
    const context = dataKeyContext(tenant, row.version);
    const key = await this.provider().unwrap({ masterKeyId: row.master_key_id, wrapped: row.wrapped }, context);
    this.unwrapped.set(context, { key, untilMs: this.clock() + CACHE_MS });
    return key;
  }
}
