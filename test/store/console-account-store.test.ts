// The ConsoleAccountStore contract (contract/console-account-store-contract.ts) against its one
// implementation (src/store/kysely/kysely-console-account-store.ts) on SQLite and on PostgreSQL.
import t from 'tap';

import { KyselyConsoleAccountStore } from '../../src/store/kysely/kysely-console-account-store.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { consoleAccountStoreContract } from './contract/console-account-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

consoleAccountStoreContract(t, 'KyselyConsoleAccountStore on SQLite', async (t) => {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  return {
    store: new KyselyConsoleAccountStore(sqliteStoreDb(db)),
    another: async () => new KyselyConsoleAccountStore(sqliteStoreDb(await databases.open())),
    rawRows: async (table) => db.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>,
    close: databases.close,
  };
});

consoleAccountStoreContract(t, 'KyselyConsoleAccountStore on PostgreSQL', async () => {
  const databases = await postgresDatabases();
  const { db } = databases;
  return {
    store: new KyselyConsoleAccountStore(postgresStoreDb(db)),
    another: async () => new KyselyConsoleAccountStore(postgresStoreDb(await databases.open())),
    rawRows: async (table) => (await db.query<Record<string, unknown>>(`SELECT * FROM ${table}`)).rows,
    close: databases.close,
  };
});
