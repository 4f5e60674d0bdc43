// Issue 48: a start refuses, naming the key id, when tenants' data keys are wrapped under a master
// key the process was not given (content sealed under them could not be read); with the key back it
// starts and the sealed content opens again.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t from 'tap';

import { masterKeyIdOf } from '../../src/store/master-keys.js';
import { MissingMasterKeyError } from '../../src/store/sealing-error.js';
import { refusedStart, startTestService } from '../helpers/test-service.js';

t.test('a start without the master key that wrapped the data keys is refused, naming its id', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = randomBytes(32);
  const env = (key: Buffer) => ({ SVC_DATA_DIR: dataDir, SVC_WEBHOOK_MASTER_KEY: key.toString('base64') });

  const before = await startTestService(env(first));
  const sealed = await before.stores.sealer.sealText('tenant-a', 'test:1', 'sealed before the restart');
  await before.close();

  const other = randomBytes(32);
  const refusal = await refusedStart(env(other));
  t.type(refusal, MissingMasterKeyError);
  t.same((refusal as MissingMasterKeyError).keyIds, [masterKeyIdOf(first)]);
  t.match((refusal as Error).message, masterKeyIdOf(first), 'names the missing key');
  t.notMatch((refusal as Error).message, masterKeyIdOf(other));

  const again = await startTestService(env(first));
  t.teardown(() => again.close());
  t.equal(await again.stores.sealer.openText('tenant-a', 'test:1', sealed), 'sealed before the restart');
});
