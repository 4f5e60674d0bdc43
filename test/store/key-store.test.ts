// The KeyStore contract (contract/key-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';
import { PgKeyStore } from '../../src/store/postgres/pg-key-store.js';
import { SqliteKeyStore } from '../../src/store/sqlite/sqlite-key-store.js';
import { keyStoreContract } from './contract/key-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

keyStoreContract(t, 'SqliteKeyStore', async (t) => {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  return {
    store: new SqliteKeyStore(db),
    another: async () => new SqliteKeyStore(await databases.open()),
    rawKeyRow: async (id) => db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as Record<string, unknown>,
    close: databases.close,
  };
});

keyStoreContract(t, 'PgKeyStore', async () => {
  const databases = await postgresDatabases();
  const { db } = databases;
  return {
    store: new PgKeyStore(db),
    another: async () => new PgKeyStore(await databases.open()),
    rawKeyRow: async (id) => (await db.query('SELECT * FROM api_keys WHERE id = $1', [id])).rows[0],
    close: databases.close,
  };
});
