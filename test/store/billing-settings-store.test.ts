// The BillingSettingsStore contract (contract/billing-settings-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';
import { PgBillingSettingsStore } from '../../src/store/postgres/pg-billing-settings-store.js';
import { PgKeyStore } from '../../src/store/postgres/pg-key-store.js';
import { SqliteBillingSettingsStore } from '../../src/store/sqlite/sqlite-billing-settings-store.js';
import { SqliteKeyStore } from '../../src/store/sqlite/sqlite-key-store.js';
import { billingSettingsStoreContract } from './contract/billing-settings-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

billingSettingsStoreContract(t, 'SqliteBillingSettingsStore', async (t) => {
  const databases = await sqliteDatabases(t);
  return {
    settings: new SqliteBillingSettingsStore(databases.db),
    another: async () => new SqliteBillingSettingsStore(await databases.open()),
    keys: new SqliteKeyStore(databases.db),
    close: databases.close,
  };
});

billingSettingsStoreContract(t, 'PgBillingSettingsStore', async () => {
  const databases = await postgresDatabases();
  return {
    settings: new PgBillingSettingsStore(databases.db),
    another: async () => new PgBillingSettingsStore(await databases.open()),
    keys: new PgKeyStore(databases.db),
    close: databases.close,
  };
});
