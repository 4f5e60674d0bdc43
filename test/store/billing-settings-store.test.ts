// The BillingSettingsStore contract (contract/billing-settings-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';

import { KyselyBillingSettingsStore } from '../../src/store/kysely/kysely-billing-settings-store.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { testKeyStore } from '../helpers/test-sealer.js';
import { billingSettingsStoreContract } from './contract/billing-settings-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

billingSettingsStoreContract(t, 'KyselyBillingSettingsStore on SQLite', async (t) => {
  const databases = await sqliteDatabases(t);
  return {
    settings: new KyselyBillingSettingsStore(sqliteStoreDb(databases.db)),
    another: async () => new KyselyBillingSettingsStore(sqliteStoreDb(await databases.open())),
    keys: testKeyStore(sqliteStoreDb(databases.db)),
    close: databases.close,
  };
});

billingSettingsStoreContract(t, 'KyselyBillingSettingsStore on PostgreSQL', async () => {
  const databases = await postgresDatabases();
  return {
    settings: new KyselyBillingSettingsStore(postgresStoreDb(databases.db)),
    another: async () => new KyselyBillingSettingsStore(postgresStoreDb(await databases.open())),
    keys: testKeyStore(postgresStoreDb(databases.db)),
    close: databases.close,
  };
});
