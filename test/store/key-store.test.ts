// The KeyStore contract (contract/key-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';
import { keyStoreContract } from './contract/key-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';
import { KyselyKeyStore } from '../../src/store/kysely/kysely-key-store.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';

keyStoreContract(t, 'KyselyKeyStore on SQLite', async (t) => {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  return {
    store: new KyselyKeyStore(sqliteStoreDb(db)),
    another: async () => new KyselyKeyStore(sqliteStoreDb(await databases.open())),
    rawKeyRow: async (id) => db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as Record<string, unknown>,
    close: databases.close,
  };
});

keyStoreContract(t, 'KyselyKeyStore on PostgreSQL', async () => {
  const databases = await postgresDatabases();
  const { db } = databases;
  return {
    store: new KyselyKeyStore(postgresStoreDb(db)),
    another: async () => new KyselyKeyStore(postgresStoreDb(await databases.open())),
    rawKeyRow: async (id) => (await db.query('SELECT * FROM api_keys WHERE id = $1', [id])).rows[0],
    close: databases.close,
  };
});
