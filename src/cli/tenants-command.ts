// svc-stt tenants erase TENANT_ID: a tenant that leaves is forgotten (src/application/erase-tenant.ts
// says in what order and why). svc-stt tenants rotate-key TENANT_ID: a new data key version seals the
// tenant's new content from then on; older versions still open what they sealed. Both work on the
// database directly, beside a running server. Audit lines (ids and counts, never content) go to
// stderr, where an operator's log collector takes them; the outcome goes to stdout.
import { eraseTenant, erasureAuditLine } from '../application/erase-tenant.js';
import { KeyStoreError } from '../store/key-store-error.js';
import { validateTenant } from '../store/key-validation.js';
import { withTenantErasureStores, withTenantKeys } from './admin-stores.js';
import type { CommandOutput } from './command-output.js';
import { parseCommandArgs } from './parse-command-args.js';
import { dispatch, type Subcommands } from './subcommands.js';
import { UsageError } from './usage-error.js';

const USAGE = `usage: npx svc-stt tenants erase TENANT_ID [--json]   (its data keys destroyed first, then every row and blob of it)
       npx svc-stt tenants rotate-key TENANT_ID [--json]   (a new data key seals its new content; older ones still open theirs)`;

export async function runTenantsCommand(argv: string[], out: CommandOutput = process.stdout): Promise<void> {
  return dispatch(TENANTS_SUBCOMMANDS, argv, out, USAGE);
}

async function erase(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USAGE, { json: { type: 'boolean', default: false } });
  if (positionals.length !== 1) throw new UsageError(`tenants erase takes one TENANT_ID\n${USAGE}`);
  const erasure = await withTenantErasureStores((stores) => eraseTenant(stores, positionals[0]!));
  process.stderr.write(`${JSON.stringify(erasureAuditLine(erasure, Date.now()))}\n`);
  if (erasure.blobsFailed > 0) process.exitCode = 1;
  if (values.json) {
    const { tenant, dataKeysDestroyed, apiKeyIds, jobs, rows, blobsDeleted, blobsFailed } = erasure;
    const json = { tenant, data_keys_destroyed: dataKeysDestroyed, api_key_ids: apiKeyIds, jobs, blobs_deleted: blobsDeleted, blobs_failed: blobsFailed, rows };
    out.write(`${JSON.stringify(json)}\n`);
    return;
  }
  const total = Object.values(erasure.rows).reduce((sum, n) => sum + n, 0);
  out.write(
    `erased tenant ${erasure.tenant}: ${erasure.dataKeysDestroyed} data key(s) destroyed, ${erasure.apiKeyIds.length} API key(s), ` +
      `${erasure.jobs} job(s), ${total} row(s) in all, ${erasure.blobsDeleted} blob(s) deleted\n` +
      (erasure.blobsFailed > 0 ? `${erasure.blobsFailed} blob(s) could not be deleted: unreadable already; the orphan sweep removes them\n` : ''),
  );
}

async function rotateKey(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USAGE, { json: { type: 'boolean', default: false } });
  if (positionals.length !== 1) throw new UsageError(`tenants rotate-key takes one TENANT_ID\n${USAGE}`);
  const tenant = validateTenant(positionals[0]!);
  const version = await withTenantKeys(async ({ tenantKeys, keys }) => {
    // A typo must not mint keys for a tenant nobody has: a tenant is one with API keys.
    if ((await keys.list(tenant)).length === 0) throw new KeyStoreError('not_found', `no tenant ${tenant}: it has no API keys`);
    return tenantKeys.rotate(tenant);
  });
  process.stderr.write(`${JSON.stringify({ audit: 'tenant.data_key_rotated', at: new Date().toISOString(), tenantId: tenant, version })}\n`);
  if (values.json) return void out.write(`${JSON.stringify({ tenant, version })}\n`);
  out.write(
    `tenant ${tenant}: data key version ${version} seals its new content from now on (running processes take it within ` +
      `5 minutes); older versions still open what they sealed\n`,
  );
}

export const TENANTS_SUBCOMMANDS: Subcommands = { erase, 'rotate-key': rotateKey };
