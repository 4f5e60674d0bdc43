// `svc-stt tenants erase` through a real child process on a data folder a server would use: the tenant's
// rows and blobs go, the other tenant's stay, the audit line (stderr) holds ids and counts only, a second
// run reports zeros, and a malformed tenant id is refused with exit 2. `tenants rotate-key` too. The erasure itself, table by table
// on both databases: test/application/erase-tenant.test.ts.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { localBlobRoot, LocalBlobStore } from '../../src/store/local-blob-store.js';
import { openStores } from '../../src/store/open-stores.js';
import { SEALED_TEXT_PREFIX, sealedKeyVersion } from '../../src/store/sealed-buffer.js';
import { SealingError } from '../../src/store/sealing-error.js';
import { PLANTED_PHRASE, plantTenant } from '../helpers/planted-tenant.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const MASTER_KEY = randomBytes(32);

function cli(dataDir: string, args: string[]) {
  const { NODE_OPTIONS, SVC_CONFIG, ...env } = process.env;
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/run.ts'), ...args], {
    cwd: ROOT,
    env: { ...env, SVC_DATA_DIR: dataDir, SVC_WEBHOOK_MASTER_KEY: MASTER_KEY.toString('base64') },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

t.test('tenants erase deletes one tenant, keeps the other, audits with ids and counts', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const stores = await openStores({ instanceId: 'test', dataDir, databaseUrl: null, webhookMasterKey: () => MASTER_KEY });
  t.teardown(() => stores.close());
  const blobs = new LocalBlobStore(localBlobRoot(dataDir));
  const gone = await plantTenant(stores, blobs, 'clinic-gone');
  const kept = await plantTenant(stores, blobs, 'clinic-kept');

  const result = cli(dataDir, ['tenants', 'erase', 'clinic-gone', '--json']);
  t.equal(result.code, 0, result.stderr);
  const out = JSON.parse(result.stdout);
  t.match(out, { tenant: 'clinic-gone', jobs: 2, blobs_deleted: 3, blobs_failed: 0, rows: { api_keys: 2, jobs: 2, voice_profiles: 1 } });
  t.ok(out.data_keys_destroyed >= 1);
  const audit = JSON.parse(result.stderr);
  t.match(audit, { audit: 'tenant.erased', tenantId: 'clinic-gone', jobs: 2 });
  t.same([...audit.apiKeyIds].sort(), [...gone.keyIds].sort());
  t.notMatch(result.stderr, PLANTED_PHRASE);

  t.same(await stores.keys.list('clinic-gone'), []);
  t.equal(await stores.jobs.getById(gone.finishedJobId), null);
  for (const ref of gone.refs) t.notOk(await blobs.exists(ref), `${ref} deleted`);
  for (const ref of kept.refs) t.ok(await blobs.exists(ref), `${ref} kept`);
  t.match((await stores.jobs.get(kept.finishedJobId, 'clinic-kept'))?.request, { prompt: `${PLANTED_PHRASE} clinic-kept-a` });

  const again = cli(dataDir, ['tenants', 'erase', 'clinic-gone']);
  t.equal(again.code, 0, again.stderr);
  t.match(again.stdout, /^erased tenant clinic-gone: 0 data key\(s\) destroyed, 0 API key\(s\), 0 job\(s\), 0 row\(s\) in all, 0 blob\(s\) deleted\n$/);

  const refused = cli(dataDir, ['tenants', 'erase', 'no such tenant']);
  t.equal(refused.code, 2);
  t.match(refused.stderr, /tenant must be 1 to 128 characters/);
  t.equal(cli(dataDir, ['tenants', 'erase']).code, 2, 'no tenant id: a usage error');
});

t.test('tenants rotate-key: new content under the new version, the old still opens; an unknown tenant is refused', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const stores = await openStores({ instanceId: 'test', dataDir, databaseUrl: null, webhookMasterKey: () => MASTER_KEY });
  t.teardown(() => stores.close());
  const blobs = new LocalBlobStore(localBlobRoot(dataDir));
  const planted = await plantTenant(stores, blobs, 'clinic-rotating');
  const before = await stores.sealer.sealText('clinic-rotating', 'test:before', 'sealed before');
  t.equal(sealedVersionOf(before), 1, 'sealed under the first data key');

  const result = cli(dataDir, ['tenants', 'rotate-key', 'clinic-rotating', '--json']);
  t.equal(result.code, 0, result.stderr);
  t.same(JSON.parse(result.stdout), { tenant: 'clinic-rotating', version: 2 });
  t.match(JSON.parse(result.stderr), { audit: 'tenant.data_key_rotated', tenantId: 'clinic-rotating', version: 2 });

  // A process started now (no cached version) seals under the new key; the old content still opens.
  const fresh = await openStores({ instanceId: 'after', dataDir, databaseUrl: null, webhookMasterKey: () => MASTER_KEY });
  t.teardown(() => fresh.close());
  t.equal(sealedVersionOf(await fresh.sealer.sealText('clinic-rotating', 'test:after', 'sealed after')), 2, 'new content under version 2');
  t.equal(await fresh.sealer.openText('clinic-rotating', 'test:before', before), 'sealed before', 'version 1 still opens what it sealed');
  t.match((await fresh.jobs.get(planted.finishedJobId, 'clinic-rotating'))?.request, { prompt: `${PLANTED_PHRASE} clinic-rotating-a` });
  t.match(cli(dataDir, ['tenants', 'rotate-key', 'clinic-rotating']).stdout, /^tenant clinic-rotating: data key version 3 seals its new content/);

  const unknown = cli(dataDir, ['tenants', 'rotate-key', 'clinic-nobody']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /no tenant clinic-nobody: it has no API keys/);
  await t.rejects(fresh.tenantKeys.version('clinic-nobody', 1), SealingError, 'no key minted for it');
});

/** The data key version a sealed TEXT value names. */
function sealedVersionOf(stored: string): number | null {
  return sealedKeyVersion(Buffer.from(stored.slice(SEALED_TEXT_PREFIX.length), 'base64'));
}
