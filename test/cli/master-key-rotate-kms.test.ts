// `svc-stt master-key rotate` onto AWS KMS, through a real child process and the real
// @aws-sdk/client-kms against the loopback KMS stand-in (test/helpers/kms-server.ts; real AWS KMS is
// not reachable here): from a local master key to a KMS key (the old local key given as previous)
// every data key is re-wrapped by KMS, after which the local key can be dropped and content still
// opens; then from that KMS key to another (named by alias) the same way. Bad KMS settings are refused.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import t from 'tap';

import { masterKeyIdOf } from '../../src/store/master-keys.js';
import { openStores } from '../../src/store/open-stores.js';
import { KMS_TEST_REGION, startKmsServer } from '../helpers/kms-server.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const OLD = randomBytes(32);
const NEW = randomBytes(32);

/** Not spawnSync: the KMS stand-in answers from this process's event loop. */
async function cli(dataDir: string, args: string[], settings: Record<string, string>) {
  const { NODE_OPTIONS, SVC_CONFIG, SVC_PREVIOUS_MASTER_KEYS, ...env } = process.env;
  return promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/run.ts'), ...args], {
    cwd: ROOT,
    env: { ...env, SVC_DATA_DIR: dataDir, ...settings },
    encoding: 'utf8',
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

t.test('master-key rotate moves data keys from a local key to KMS, then to another KMS key', async (t) => {
  const kms = await startKmsServer();
  t.teardown(() => kms.close());
  const first = kms.createKey();
  kms.createKey('svc-stt-next');
  const dataDir = join(t.testdir(), 'data');
  const local = (key: Buffer) => ({ SVC_WEBHOOK_MASTER_KEY: key.toString('base64') });
  const onKms = (keyId: string, previous?: string) => ({
    SVC_KMS_KEY_ID: keyId,
    SVC_KMS_ENDPOINT: kms.endpoint,
    AWS_REGION: KMS_TEST_REGION,
    ...(previous ? { SVC_KMS_PREVIOUS_KEY_IDS: previous } : {}),
  });
  const open = async (key: Buffer, kmsKeyId: string) => {
    const stores = await openStores({
      instanceId: 'test',
      dataDir,
      databaseUrl: null,
      webhookMasterKey: () => key,
      kms: { keyId: kmsKeyId, previousKeyIds: [], region: KMS_TEST_REGION, endpoint: kms.endpoint },
    });
    t.teardown(() => stores.close());
    return stores;
  };

  t.equal((await cli(dataDir, ['keys', 'create', '--tenant', 'clinic-a'], local(OLD))).code, 0);
  const before = await openStores({ instanceId: 'test', dataDir, databaseUrl: null, webhookMasterKey: () => OLD });
  const sealed = await before.sealer.sealText('clinic-a', 'probe', 'sealed under the local key');
  await before.sealer.sealText('clinic-b', 'probe', 'another tenant');
  await before.close();

  const refused = await cli(dataDir, ['master-key', 'rotate'], { ...local(NEW), ...onKms('not a key id') });
  t.equal(refused.code, 1, 'a malformed KMS key id is refused');
  t.match(refused.stderr, /SVC_KMS_KEY_ID must be a KMS key id/);

  // Local -> KMS: a new webhook master key too, the old local key given as previous.
  const toKms = await cli(dataDir, ['master-key', 'rotate'], { ...local(NEW), SVC_PREVIOUS_MASTER_KEYS: OLD.toString('base64'), ...onKms(first) });
  t.equal(toKms.code, 0, toKms.stderr);
  t.match(toKms.stdout, `master key kms:${first} is active: 2 data key(s) re-wrapped under it`);
  t.match(toKms.stdout, `${masterKeyIdOf(OLD)} is no longer used: remove it from SVC_PREVIOUS_MASTER_KEYS`);
  const onFirst = await open(NEW, first);
  t.same(await onFirst.tenantKeys.masterKeyIdsInUse(), [`kms:${first}`], 'every data key row names the KMS key');
  t.equal(await onFirst.sealer.openText('clinic-a', 'probe', sealed), 'sealed under the local key', 'the old local key dropped: content opens');

  // KMS -> KMS, the new key named by its alias.
  const next = await cli(dataDir, ['master-key', 'rotate', '--json'], { ...local(NEW), ...onKms('alias/svc-stt-next', first) });
  t.equal(next.code, 0, next.stderr);
  t.match(JSON.parse(next.stdout), { active: 'kms:alias/svc-stt-next', data_keys_rewrapped: 2, in_use: ['kms:alias/svc-stt-next'], retired: [`kms:${first}`] });
  const text = await cli(dataDir, ['master-key', 'rotate'], { ...local(NEW), ...onKms('alias/svc-stt-next', first) });
  t.match(text.stdout, `kms:${first} is no longer used: remove it from SVC_KMS_PREVIOUS_KEY_IDS`);
  const onSecond = await open(NEW, 'alias/svc-stt-next');
  t.equal(await onSecond.sealer.openText('clinic-a', 'probe', sealed), 'sealed under the local key', 'the first KMS key dropped: content opens');
});
