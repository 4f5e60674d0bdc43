// The InstanceRegistry contract (contract/instance-registry-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';
import { PgInstanceRegistry } from '../../src/store/postgres/pg-instance-registry.js';
import { SqliteInstanceRegistry } from '../../src/store/sqlite/sqlite-instance-registry.js';
import { instanceRegistryContract } from './contract/instance-registry-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

instanceRegistryContract(t, 'SqliteInstanceRegistry', async (t) => {
  const databases = await sqliteDatabases(t);
  return {
    registry: new SqliteInstanceRegistry(databases.db),
    another: async () => new SqliteInstanceRegistry(await databases.open()),
    close: databases.close,
  };
});

instanceRegistryContract(t, 'PgInstanceRegistry', async () => {
  const databases = await postgresDatabases();
  return {
    registry: new PgInstanceRegistry(databases.db),
    another: async () => new PgInstanceRegistry(await databases.open()),
    close: databases.close,
  };
});
