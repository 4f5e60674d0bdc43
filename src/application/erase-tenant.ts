// Erasing a tenant (issue 48 item 4, `svc-stt tenants erase`): a clinic that leaves is forgotten,
// backups included. It runs in whichever process the operator starts, beside running servers on the
// same database, so it needs nothing of the server.
//
// The order is what makes it hold:
// 1. The tenant is recorded as erased (a digest of its id: store/erased-tenants.ts), so no process makes
//    a data key for it again, and its data keys are destroyed (crypto-shredding): from then on whatever
//    of its content survives — a database backup, a bucket object version, a blob this run fails to
//    delete — opens nowhere, and nothing new is sealed for it (a worker still on one of its jobs fails
//    its next write). Another process that still caches an unwrapped key (tenant-keys.ts, minutes) can
//    open with it until the cache ends, but only for the work step 2 stops.
// 2. Every row goes in one transaction: API keys (authentication refuses them at once; realtime
//    sessions under them end at the next key watch poll, KeyStandingWatch), jobs (a worker holding one
//    loses its lease at its next heartbeat or write and stops; an upload streaming in finds no slot),
//    and everything else the tenant owns (TenantErasureStore says what).
// 3. The blobs those job rows named are deleted through the BlobStore, with any direct upload.
// 4. The data keys are destroyed again, in case. A blob a worker sealed under the current key just
//    before 1 and stores after 3 is no row's, and unreadable: the orphan sweep removes it.
//
// Usage goes too, events and totals: billing here is a report, not the ledger of record, so the
// operator exports `svc-stt usage --tenant T` for the final invoice before erasing (docs/OPERATIONS.md).
// Keeping per-tenant totals would keep the tenant id, which erasure promises is gone.
//
// Idempotent: a second run finds nothing and reports zeros. The erased tenant's id is not reused:
// content for it is refused from then on.
import type { BlobStore } from '../store/blob-store.js';
import { validateTenant } from '../store/key-validation.js';
import type { ErasedRows, TenantErasureStore } from '../store/tenant-erasure-store.js';
import type { TenantKeys } from '../store/tenant-keys.js';

export interface TenantErasureStores {
  tenantKeys: Pick<TenantKeys, 'erase' | 'destroy'>;
  erasure: TenantErasureStore;
  blobs: Pick<BlobStore, 'delete' | 'directUploads'>;
}

export interface TenantErasure {
  tenant: string;
  /** Data key versions destroyed (both passes). */
  dataKeysDestroyed: number;
  /** The API key ids deleted. */
  apiKeyIds: string[];
  jobs: number;
  /** Rows deleted per table. */
  rows: ErasedRows;
  blobsDeleted: number;
  /** Blobs whose deletion failed: unreadable already (their key is gone); the orphan sweep removes them. */
  blobsFailed: number;
}

/** Throws KeyStoreError('invalid_argument') when `tenant` is not a tenant id's shape. */
export async function eraseTenant(stores: TenantErasureStores, tenant: string): Promise<TenantErasure> {
  validateTenant(tenant);
  let dataKeysDestroyed = await stores.tenantKeys.erase(tenant);
  const { rows, keyIds, jobs } = await stores.erasure.erase(tenant);
  let blobsDeleted = 0;
  let blobsFailed = 0;
  const deleting = async (deletion: () => Promise<void> | undefined, counted: boolean) => {
    try {
      await deletion();
      if (counted) blobsDeleted += 1;
    } catch {
      blobsFailed += 1;
    }
  };
  for (const job of jobs) {
    for (const ref of job.refs) await deleting(() => stores.blobs.delete(ref), true);
    // A file posted straight to the bucket and never completed is not in the row: removed too, not counted.
    await deleting(() => stores.blobs.directUploads?.discard(job.id), false);
  }
  dataKeysDestroyed += await stores.tenantKeys.destroy(tenant);
  return { tenant, dataKeysDestroyed, apiKeyIds: keyIds, jobs: jobs.length, rows: { ...rows, tenant_data_keys: dataKeysDestroyed }, blobsDeleted, blobsFailed };
}

/** The audit line of an erasure: ids and counts, never content. */
export function erasureAuditLine(erasure: TenantErasure, atMs: number): Record<string, unknown> {
  return {
    audit: 'tenant.erased',
    at: new Date(atMs).toISOString(),
    tenantId: erasure.tenant,
    apiKeyIds: erasure.apiKeyIds,
    jobs: erasure.jobs,
    dataKeysDestroyed: erasure.dataKeysDestroyed,
    blobsDeleted: erasure.blobsDeleted,
    blobsFailed: erasure.blobsFailed,
    rows: erasure.rows,
  };
}
