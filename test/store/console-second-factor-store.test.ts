// The ConsoleSecondFactorStore contract (contract/console-second-factor-store-contract.ts) against its one
// implementation (src/store/kysely/kysely-console-second-factor-store.ts) on SQLite and on PostgreSQL.
import t from 'tap';

import { KyselyConsoleAccountStore } from '../../src/store/kysely/kysely-console-account-store.js';
import { KyselyConsoleSecondFactorStore } from '../../src/store/kysely/kysely-console-second-factor-store.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { consoleSecondFactorStoreContract } from './contract/console-second-factor-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

const COPY_SEALED = `UPDATE console_totp SET (ciphertext, iv, auth_tag) = (SELECT ciphertext, iv, auth_tag FROM console_totp WHERE user_id = $1)
  WHERE user_id = $2`;

consoleSecondFactorStoreContract(t, 'KyselyConsoleSecondFactorStore on SQLite', async (t, masterKey) => {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  const storeDb = sqliteStoreDb(db);
  return {
    store: new KyselyConsoleSecondFactorStore(storeDb, () => masterKey),
    accounts: new KyselyConsoleAccountStore(storeDb),
    withMasterKey: (other) => new KyselyConsoleSecondFactorStore(storeDb, () => other),
    another: async () => new KyselyConsoleSecondFactorStore(sqliteStoreDb(await databases.open()), () => masterKey),
    rawRows: async (table) => db.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>,
    copySealed: async (from, to) => {
      db.prepare(COPY_SEALED.replace('$1', '?').replace('$2', '?')).run(from, to);
    },
    close: databases.close,
  };
});

consoleSecondFactorStoreContract(t, 'KyselyConsoleSecondFactorStore on PostgreSQL', async (_t, masterKey) => {
  const databases = await postgresDatabases();
  const { db } = databases;
  const storeDb = postgresStoreDb(db);
  return {
    store: new KyselyConsoleSecondFactorStore(storeDb, () => masterKey),
    accounts: new KyselyConsoleAccountStore(storeDb),
    withMasterKey: (other) => new KyselyConsoleSecondFactorStore(storeDb, () => other),
    another: async () => new KyselyConsoleSecondFactorStore(postgresStoreDb(await databases.open()), () => masterKey),
    rawRows: async (table) => (await db.query<Record<string, unknown>>(`SELECT * FROM ${table}`)).rows,
    copySealed: async (from, to) => {
      await db.query(COPY_SEALED, [from, to]);
    },
    close: databases.close,
  };
});
