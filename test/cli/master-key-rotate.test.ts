// `svc-stt master-key rotate` through a real child process: with the new key active and the old one in
// SVC_PREVIOUS_MASTER_KEYS it re-wraps the data keys, seals the webhook secret again and names the old
// key as unused; the CLI then works with the new key alone; a malformed previous key is refused. The
// rotation itself on both databases, with processes racing it: test/application/rotate-master-key.test.ts.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { masterKeyIdOf } from '../../src/store/master-keys.js';
import { openStores } from '../../src/store/open-stores.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const OLD = randomBytes(32);
const NEW = randomBytes(32);

function cli(dataDir: string, args: string[], keys: { active: Buffer; previous?: string }) {
  const { NODE_OPTIONS, SVC_CONFIG, SVC_PREVIOUS_MASTER_KEYS, ...env } = process.env;
  const previous = keys.previous === undefined ? {} : { SVC_PREVIOUS_MASTER_KEYS: keys.previous };
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/run.ts'), ...args], {
    cwd: ROOT,
    env: { ...env, SVC_DATA_DIR: dataDir, SVC_WEBHOOK_MASTER_KEY: keys.active.toString('base64'), ...previous },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

t.test('master-key rotate moves everything to the new key and names the old one unused', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const { id } = JSON.parse(cli(dataDir, ['keys', 'create', '--json', '--tenant', 'clinic-a'], { active: OLD }).stdout);
  t.equal(cli(dataDir, ['webhooks', 'secret', 'create', '--key', id], { active: OLD }).code, 0);
  const before = await openStores({ instanceId: 'test', dataDir, databaseUrl: null, webhookMasterKey: () => OLD });
  const sealed = await before.sealer.sealText('clinic-a', 'probe', 'sealed under the old key');
  await before.close();

  const refused = cli(dataDir, ['master-key', 'rotate'], { active: NEW, previous: 'not-a-key' });
  t.equal(refused.code, 1);
  t.match(refused.stderr, /SVC_PREVIOUS_MASTER_KEYS/);
  const missing = cli(dataDir, ['master-key', 'rotate'], { active: NEW });
  t.not(missing.code, 0, 'without the old key it refuses');
  t.match(missing.stderr, new RegExp(masterKeyIdOf(OLD)), 'naming the key it needs');

  const rotated = cli(dataDir, ['master-key', 'rotate', '--batch', '1'], { active: NEW, previous: OLD.toString('base64') });
  t.equal(rotated.code, 0, rotated.stderr);
  t.match(rotated.stdout, /^re-wrapped 1 data key\(s\)\n/);
  t.match(rotated.stdout, `master key ${masterKeyIdOf(NEW)} is active: 1 data key(s) re-wrapped under it, 1 webhook secret(s) and 0 TOTP secret(s)`);
  t.match(rotated.stdout, `${masterKeyIdOf(OLD)} is no longer used: remove it from SVC_PREVIOUS_MASTER_KEYS`);

  const again = cli(dataDir, ['master-key', 'rotate', '--json'], { active: NEW });
  t.equal(again.code, 0, again.stderr);
  t.same(JSON.parse(again.stdout), {
    active: masterKeyIdOf(NEW),
    data_keys_rewrapped: 0,
    webhook_secrets_resealed: 0,
    totp_secrets_resealed: 0,
    in_use: [masterKeyIdOf(NEW)],
    retired: [],
  });
  const after = await openStores({ instanceId: 'test', dataDir, databaseUrl: null, webhookMasterKey: () => NEW });
  t.teardown(() => after.close());
  t.equal(await after.sealer.openText('clinic-a', 'probe', sealed), 'sealed under the old key');
  t.equal((await after.webhookSecrets.signingKeys(id, Date.now())).length, 1, 'the new key alone opens the webhook secret');
});
