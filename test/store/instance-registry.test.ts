// The InstanceRegistry contract (contract/instance-registry-contract.ts) against its one implementation
// (src/store/kysely/kysely-instance-registry.ts) on SQLite and on PostgreSQL.
import t from 'tap';

import { KyselyInstanceRegistry } from '../../src/store/kysely/kysely-instance-registry.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { instanceRegistryContract } from './contract/instance-registry-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

instanceRegistryContract(t, 'KyselyInstanceRegistry on SQLite', async (t) => {
  const databases = await sqliteDatabases(t);
  return {
    registry: new KyselyInstanceRegistry(sqliteStoreDb(databases.db)),
    another: async () => new KyselyInstanceRegistry(sqliteStoreDb(await databases.open())),
    close: databases.close,
  };
});

instanceRegistryContract(t, 'KyselyInstanceRegistry on PostgreSQL', async () => {
  const databases = await postgresDatabases();
  return {
    registry: new KyselyInstanceRegistry(postgresStoreDb(databases.db)),
    another: async () => new KyselyInstanceRegistry(postgresStoreDb(await databases.open())),
    close: databases.close,
  };
});
