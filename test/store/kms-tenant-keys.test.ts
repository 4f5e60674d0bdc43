// Tenants' data keys wrapped by AWS KMS in the stores of both databases (the loopback KMS stand-in,
// test/helpers/kms-server.ts, through the real @aws-sdk/client-kms): a row made before KMS, under the
// local master key, keeps opening once a KMS key is active; new rows name `kms:<KeyId>` (the column is
// TEXT on both, no length to outgrow); a process with only the local key is refused, naming the KMS key.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import t from 'tap';

import { masterKeyIdOf } from '../../src/store/master-keys.js';
import { openStores, type Stores } from '../../src/store/open-stores.js';
import { MissingMasterKeyError } from '../../src/store/sealing-error.js';
import { startKmsServer } from '../helpers/kms-server.js';
import { sharedPostgres } from '../helpers/postgres-server.js';

const databases: Record<string, () => Promise<string | null>> = {
  SQLite: async () => null,
  PostgreSQL: async () => (await sharedPostgres()).createDatabase(),
};

for (const [name, database] of Object.entries(databases)) {
  t.test(name, async (t) => {
    const kms = await startKmsServer();
    t.teardown(() => kms.close());
    const arn = kms.createKey();
    const dataDir = join(t.testdir(), 'data');
    const databaseUrl = await database();
    const master = randomBytes(32);
    const open = async (keyId: string | null): Promise<Stores> => {
      const settings = keyId === null ? null : { keyId, previousKeyIds: [], region: kms.region, endpoint: kms.endpoint };
      const stores = await openStores({ instanceId: 'test', dataDir, databaseUrl, webhookMasterKey: () => master, kms: settings });
      t.teardown(() => stores.close());
      return stores;
    };

    const local = await open(null);
    const before = await local.sealer.sealText('clinic-a', 'probe', 'sealed before KMS');

    const withKms = await open(arn);
    await withKms.requireMasterKeys();
    t.equal(await withKms.sealer.openText('clinic-a', 'probe', before), 'sealed before KMS', 'a locally wrapped key still opens');
    const after = await withKms.sealer.sealText('clinic-b', 'probe', 'sealed under KMS');
    const longAlias = `alias/${'x'.repeat(200)}`;
    kms.createKey(longAlias.slice('alias/'.length));
    const underAlias = await open(longAlias);
    await underAlias.tenantKeys.rotate('clinic-b');
    t.same(await withKms.tenantKeys.masterKeyIdsInUse(), [`kms:${arn}`, `kms:${longAlias}`, masterKeyIdOf(master)].sort(), 'rows name their keys');
    t.equal(await withKms.sealer.openText('clinic-b', 'probe', after), 'sealed under KMS');

    const refusal = await (await open(null)).requireMasterKeys().catch((error: unknown) => error);
    t.type(refusal, MissingMasterKeyError, 'the local key alone is refused');
    t.same((refusal as MissingMasterKeyError).keyIds, [`kms:${arn}`, `kms:${longAlias}`].sort());
  });
}
