// The RealtimeSeatStore contract (contract/realtime-seat-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';

import { KyselyInstanceRegistry } from '../../src/store/kysely/kysely-instance-registry.js';
import { KyselyRealtimeSeatStore } from '../../src/store/kysely/kysely-realtime-seat-store.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { realtimeSeatStoreContract } from './contract/realtime-seat-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

realtimeSeatStoreContract(t, 'KyselyRealtimeSeatStore on SQLite', async (t) => {
  const databases = await sqliteDatabases(t);
  return {
    seatsFor: async (instanceId) => new KyselyRealtimeSeatStore(sqliteStoreDb(await databases.open()), { instanceId }),
    instances: new KyselyInstanceRegistry(sqliteStoreDb(databases.db)),
    close: databases.close,
  };
});

realtimeSeatStoreContract(t, 'KyselyRealtimeSeatStore on PostgreSQL', async () => {
  const databases = await postgresDatabases();
  return {
    seatsFor: async (instanceId) => new KyselyRealtimeSeatStore(postgresStoreDb(await databases.open()), { instanceId }),
    instances: new KyselyInstanceRegistry(postgresStoreDb(databases.db)),
    close: databases.close,
  };
});
