// What only SqliteJobStore has, outside the JobStore contract (contract/job-store-contract.ts):
// `referencesAudio`, the first version's name for referencesBlob, still on the class.
import t from 'tap';
import { SqliteJobStore } from '../../src/store/sqlite/sqlite-job-store.js';
import { sqliteDatabases } from './contract/store-databases.js';

t.test('referencesAudio answers as referencesBlob does', async (t) => {
  const databases = await sqliteDatabases(t);
  t.teardown(() => databases.close());
  const jobs = new SqliteJobStore(databases.db);
  await jobs.create({ tenant: 'ten_a', keyId: 'key_AAAAAAAAAAAA', status: 'accepted', request: {}, audioPath: '/blobs/jobs/one.audio', audioSeconds: 1, webhookUrl: null });
  t.equal(await jobs.referencesAudio('/blobs/jobs/one.audio'), true);
  t.equal(await jobs.referencesAudio('/blobs/jobs/two.audio'), false);
});
