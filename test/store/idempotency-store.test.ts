// The IdempotencyStore contract (contract/idempotency-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';
import { PgIdempotencyStore } from '../../src/store/postgres/pg-idempotency-store.js';
import { PgInstanceRegistry } from '../../src/store/postgres/pg-instance-registry.js';
import { SqliteIdempotencyStore } from '../../src/store/sqlite/sqlite-idempotency-store.js';
import { SqliteInstanceRegistry } from '../../src/store/sqlite/sqlite-instance-registry.js';
import { idempotencyStoreContract } from './contract/idempotency-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

idempotencyStoreContract(t, 'SqliteIdempotencyStore', async (t) => {
  const databases = await sqliteDatabases(t);
  return {
    store: new SqliteIdempotencyStore(databases.db),
    another: async () => new SqliteIdempotencyStore(await databases.open()),
    ownedBy: async (owner) => new SqliteIdempotencyStore(databases.db, { owner }),
    instances: new SqliteInstanceRegistry(databases.db),
    close: databases.close,
  };
});

idempotencyStoreContract(t, 'PgIdempotencyStore', async () => {
  const databases = await postgresDatabases();
  return {
    store: new PgIdempotencyStore(databases.db),
    another: async () => new PgIdempotencyStore(await databases.open()),
    ownedBy: async (owner) => new PgIdempotencyStore(databases.db, { owner }),
    instances: new PgInstanceRegistry(databases.db),
    close: databases.close,
  };
});
