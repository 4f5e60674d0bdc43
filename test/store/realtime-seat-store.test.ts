// The RealtimeSeatStore contract (contract/realtime-seat-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';
import { PgRealtimeSeatStore } from '../../src/store/postgres/pg-realtime-seat-store.js';
import { SqliteRealtimeSeatStore } from '../../src/store/sqlite/sqlite-realtime-seat-store.js';
import { realtimeSeatStoreContract } from './contract/realtime-seat-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';
import { KyselyInstanceRegistry } from '../../src/store/kysely/kysely-instance-registry.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';

realtimeSeatStoreContract(t, 'SqliteRealtimeSeatStore', async (t) => {
  const databases = await sqliteDatabases(t);
  return {
    seatsFor: async (instanceId) => new SqliteRealtimeSeatStore(await databases.open(), { instanceId }),
    instances: new KyselyInstanceRegistry(sqliteStoreDb(databases.db)),
    close: databases.close,
  };
});

realtimeSeatStoreContract(t, 'PgRealtimeSeatStore', async () => {
  const databases = await postgresDatabases();
  return {
    seatsFor: async (instanceId) => new PgRealtimeSeatStore(await databases.open(), { instanceId }),
    instances: new KyselyInstanceRegistry(postgresStoreDb(databases.db)),
    close: databases.close,
  };
});
