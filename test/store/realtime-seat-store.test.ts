// The RealtimeSeatStore contract (contract/realtime-seat-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';
import { PgInstanceRegistry } from '../../src/store/postgres/pg-instance-registry.js';
import { PgRealtimeSeatStore } from '../../src/store/postgres/pg-realtime-seat-store.js';
import { SqliteInstanceRegistry } from '../../src/store/sqlite/sqlite-instance-registry.js';
import { SqliteRealtimeSeatStore } from '../../src/store/sqlite/sqlite-realtime-seat-store.js';
import { realtimeSeatStoreContract } from './contract/realtime-seat-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

realtimeSeatStoreContract(t, 'SqliteRealtimeSeatStore', async (t) => {
  const databases = await sqliteDatabases(t);
  return {
    seatsFor: async (instanceId) => new SqliteRealtimeSeatStore(await databases.open(), { instanceId }),
    instances: new SqliteInstanceRegistry(databases.db),
    close: databases.close,
  };
});

realtimeSeatStoreContract(t, 'PgRealtimeSeatStore', async () => {
  const databases = await postgresDatabases();
  return {
    seatsFor: async (instanceId) => new PgRealtimeSeatStore(await databases.open(), { instanceId }),
    instances: new PgInstanceRegistry(databases.db),
    close: databases.close,
  };
});
