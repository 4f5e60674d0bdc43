// What only the job store class has, outside the JobStore contract (contract/job-store-contract.ts):
// `referencesAudio`, the first version's name for referencesBlob, still on the class.
import t from 'tap';

import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { testJobStore } from '../helpers/test-sealer.js';
import { sqliteDatabases } from './contract/store-databases.js';

t.test('referencesAudio answers as referencesBlob does', async (t) => {
  const databases = await sqliteDatabases(t);
  t.teardown(() => databases.close());
  const jobs = testJobStore(sqliteStoreDb(databases.db));
  await jobs.create({
    tenant: 'ten_a',
    keyId: 'key_AAAAAAAAAAAA',
    status: 'accepted',
    request: {},
    audioPath: '/blobs/jobs/one.audio',
    audioSeconds: 1,
    webhookUrl: null,
  });
  t.equal(await jobs.referencesAudio('/blobs/jobs/one.audio'), true);
  t.equal(await jobs.referencesAudio('/blobs/jobs/two.audio'), false);
});
