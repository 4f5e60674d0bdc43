// The VoiceProfileStore contract (contract/voice-profile-store-contract.ts) against its one implementation
// (src/store/kysely/kysely-voice-profile-store.ts) on SQLite and on PostgreSQL.
import t from 'tap';

import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { testVoiceProfileStore } from '../helpers/test-sealer.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';
import { voiceProfileStoreContract } from './contract/voice-profile-store-contract.js';

voiceProfileStoreContract(t, 'KyselyVoiceProfileStore on SQLite', async (t) => {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  return {
    store: testVoiceProfileStore(sqliteStoreDb(db)),
    another: async () => testVoiceProfileStore(sqliteStoreDb(await databases.open())),
    rawRows: async () => db.prepare('SELECT * FROM voice_profiles').all() as Array<Record<string, unknown>>,
    close: databases.close,
  };
});

voiceProfileStoreContract(t, 'KyselyVoiceProfileStore on PostgreSQL', async () => {
  const databases = await postgresDatabases();
  const { db } = databases;
  return {
    store: testVoiceProfileStore(postgresStoreDb(db)),
    another: async () => testVoiceProfileStore(postgresStoreDb(await databases.open())),
    rawRows: async () => (await db.query<Record<string, unknown>>('SELECT * FROM voice_profiles')).rows,
    close: databases.close,
  };
});
