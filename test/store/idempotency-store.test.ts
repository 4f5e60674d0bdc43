// The IdempotencyStore contract (contract/idempotency-store-contract.ts) against its one
// implementation (src/store/kysely/kysely-idempotency-store.ts) on SQLite and on PostgreSQL.
import pg from 'pg';
import t from 'tap';

import { KyselyInstanceRegistry } from '../../src/store/kysely/kysely-instance-registry.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import type { PostgresDatabase } from '../../src/store/postgres/database.js';
import { StoreUnavailableError } from '../../src/store/store-unavailable-error.js';
import { testIdempotencyStore } from '../helpers/test-sealer.js';
import { idempotencyStoreContract } from './contract/idempotency-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

idempotencyStoreContract(t, 'KyselyIdempotencyStore on SQLite', async (t) => {
  const databases = await sqliteDatabases(t);
  return {
    store: testIdempotencyStore(sqliteStoreDb(databases.db)),
    another: async () => testIdempotencyStore(sqliteStoreDb(await databases.open())),
    ownedBy: async (owner) => testIdempotencyStore(sqliteStoreDb(databases.db), { owner }),
    instances: new KyselyInstanceRegistry(sqliteStoreDb(databases.db)),
    close: databases.close,
  };
});

idempotencyStoreContract(t, 'KyselyIdempotencyStore on PostgreSQL', async () => {
  const databases = await postgresDatabases();
  return {
    store: testIdempotencyStore(postgresStoreDb(databases.db)),
    another: async () => testIdempotencyStore(postgresStoreDb(await databases.open())),
    ownedBy: async (owner) => testIdempotencyStore(postgresStoreDb(databases.db), { owner }),
    instances: new KyselyInstanceRegistry(postgresStoreDb(databases.db)),
    close: databases.close,
  };
});

t.test('on PostgreSQL, a database that cannot be reached is StoreUnavailableError, as for the hand-written stores', async (t) => {
  // Nothing listens on port 1: the connection is refused.
  const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 2_000 });
  t.teardown(() => pool.end());
  const store = testIdempotencyStore(postgresStoreDb({ pool } as unknown as PostgresDatabase));
  const error = await store.begin('ten_a', 'k', 'fp').catch((e: unknown) => e);
  t.ok(error instanceof StoreUnavailableError, 'a StoreUnavailableError');
  t.match((error as StoreUnavailableError).cause, { code: 'ECONNREFUSED' }, 'with the connection failure as its cause');
});
