// The KeyStore contract (contract/key-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';

import { KyselyBillingSettingsStore } from '../../src/store/kysely/kysely-billing-settings-store.js';
import { KyselyUsageLedger } from '../../src/store/kysely/kysely-usage-ledger.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { testKeyStore } from '../helpers/test-sealer.js';
import { keyStoreContract } from './contract/key-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

keyStoreContract(t, 'KyselyKeyStore on SQLite', async (t) => {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  const clock = { nowMs: null as number | null };
  const now = () => clock.nowMs ?? Date.now();
  return {
    store: testKeyStore(sqliteStoreDb(db), now),
    another: async () => testKeyStore(sqliteStoreDb(await databases.open()), now),
    rawKeyRow: async (id) => db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as Record<string, unknown>,
    clock,
    billing: new KyselyBillingSettingsStore(sqliteStoreDb(db)),
    ledger: new KyselyUsageLedger(sqliteStoreDb(db)),
    close: databases.close,
  };
});

keyStoreContract(t, 'KyselyKeyStore on PostgreSQL', async () => {
  const databases = await postgresDatabases();
  const { db } = databases;
  const clock = { nowMs: null as number | null };
  const now = () => clock.nowMs ?? Date.now();
  return {
    store: testKeyStore(postgresStoreDb(db), now),
    another: async () => testKeyStore(postgresStoreDb(await databases.open()), now),
    rawKeyRow: async (id) => (await db.query('SELECT * FROM api_keys WHERE id = $1', [id])).rows[0],
    clock,
    billing: new KyselyBillingSettingsStore(postgresStoreDb(db)),
    ledger: new KyselyUsageLedger(postgresStoreDb(db)),
    close: databases.close,
  };
});
