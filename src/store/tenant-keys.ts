// Each tenant's data keys (issue 48): random 256-bit keys, created on the tenant's first sealed
// write, stored only wrapped under a master key (master-keys.ts). The highest version seals new
// content; every version still opens what it sealed (a per-tenant rotation adds a version).
// Destroying a tenant's rows here makes whatever was sealed under them unreadable everywhere, backups
// and bucket versions included (crypto-shredding).
import type { StoreDb } from './kysely/store-schema.js';

export interface DataKey {
  version: number;
  key: Buffer;
}

export interface TenantKeys {
  /**
   * The key new content of `tenant` is sealed under; created (version 1) when the tenant has none.
   * Throws TenantErasedError (../erased-tenants.ts) for a tenant that was erased.
   */
  current(tenant: string): Promise<DataKey>;
  /** The key of `version`; throws SealingError when the tenant has no such key (destroyed, or never made). */
  version(tenant: string, version: number): Promise<Buffer>;
  /**
   * A new data key version for `tenant`, which seals its new content from now on (in every process:
   * the current version is read on each seal); older versions still open what they
   * sealed until that content is sealed again. Returns the new version.
   */
  rotate(tenant: string): Promise<number>;
  /**
   * Deletes every data key version of `tenant` (crypto-shredding: what they sealed opens nowhere any
   * more, other processes once their cached keys end). Returns the versions deleted.
   */
  destroy(tenant: string): Promise<number>;
  /**
   * Records `tenant` as erased, so that no process makes a data key for it again (current() refuses
   * it), then destroys its keys as destroy() does. Returns the versions deleted.
   */
  erase(tenant: string): Promise<number>;
  /**
   * Re-wraps, in one transaction, up to `limit` of the data keys wrapped under another master key than
   * the active one (a master key rotation); each row only if no one re-wrapped or destroyed it since it
   * was read, so rotations running at once, or again after an interruption, are harmless. `found`: rows
   * read (0: none is left); `rewrapped`: rows this call changed.
   */
  rewrapUnderActiveKey(limit: number): Promise<{ found: number; rewrapped: number }>;
  /** The master key ids that wrap at least one data key (a start without one of them must refuse). */
  masterKeyIdsInUse(): Promise<string[]>;
  /**
   * The same keys, read through `db` (a transaction the caller holds): on SQLite a read on another
   * handle would wait for the caller's own write lock.
   */
  within(db: StoreDb): TenantKeys;
}

/** `tenant/v<version>`: bound to the wrapped key, so a wrapped key copied to another tenant's row does not unwrap. */
export function dataKeyContext(tenant: string, version: number): string {
  return `${tenant}/v${version}`;
}
