// The RealtimeClientSecretStore contract (contract/realtime-client-secret-store-contract.ts) against its
// one implementation (src/store/kysely/kysely-realtime-client-secret-store.ts) on SQLite and on PostgreSQL.
import t from 'tap';

import { KyselyRealtimeClientSecretStore } from '../../src/store/kysely/kysely-realtime-client-secret-store.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { testKeyStore } from '../helpers/test-sealer.js';
import { realtimeClientSecretStoreContract } from './contract/realtime-client-secret-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

realtimeClientSecretStoreContract(t, 'KyselyRealtimeClientSecretStore on SQLite', async (t) => {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  return {
    store: new KyselyRealtimeClientSecretStore(sqliteStoreDb(db)),
    another: async () => new KyselyRealtimeClientSecretStore(sqliteStoreDb(await databases.open())),
    keys: testKeyStore(sqliteStoreDb(db)),
    rawRows: async () => db.prepare('SELECT * FROM realtime_client_secrets').all() as Array<Record<string, unknown>>,
    close: databases.close,
  };
});

realtimeClientSecretStoreContract(t, 'KyselyRealtimeClientSecretStore on PostgreSQL', async () => {
  const databases = await postgresDatabases();
  const { db } = databases;
  return {
    store: new KyselyRealtimeClientSecretStore(postgresStoreDb(db)),
    another: async () => new KyselyRealtimeClientSecretStore(postgresStoreDb(await databases.open())),
    keys: testKeyStore(postgresStoreDb(db)),
    rawRows: async () => (await db.query<Record<string, unknown>>('SELECT * FROM realtime_client_secrets')).rows,
    close: databases.close,
  };
});
