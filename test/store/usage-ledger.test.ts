// The UsageLedger contract (contract/usage-ledger-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';

import type { JobStatus } from '../../src/domain/job-statuses.js';
import { KyselyInstanceRegistry } from '../../src/store/kysely/kysely-instance-registry.js';
import { KyselyUsageLedger } from '../../src/store/kysely/kysely-usage-ledger.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import type { StoreDb } from '../../src/store/kysely/store-schema.js';
import { testJobStore } from '../helpers/test-sealer.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';
import { usageLedgerContract } from './contract/usage-ledger-contract.js';

/** Instances registered for an hour, or removed, on the ledger's database. */
const instances = (db: StoreDb) => {
  const registry = new KyselyInstanceRegistry(db);
  return async (id: string, alive: boolean) => (alive ? registry.register(id, 'all', Date.now(), 3_600_000) : registry.deregister(id));
};

/** A job row in `status` (created when missing), on the ledger's database. */
const jobs = (db: StoreDb) => {
  const store = testJobStore(db);
  return async (id: string, status: JobStatus) => {
    if (!(await store.getById(id))) {
      await store.create({
        id,
        tenant: 'acme',
        keyId: 'key_k1',
        status: 'accepted',
        request: { model: 'base' },
        audioPath: null,
        audioSeconds: null,
        webhookUrl: null,
      });
    }
    await db.updateTable('jobs').set({ status }).where('id', '=', id).execute();
  };
};

usageLedgerContract(t, 'KyselyUsageLedger on SQLite', async (t) => {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  const storeDb = sqliteStoreDb(db);
  return {
    ledger: new KyselyUsageLedger(storeDb),
    instanceAlive: instances(storeDb),
    jobStatus: jobs(storeDb),
    another: async () => new KyselyUsageLedger(sqliteStoreDb(await databases.open())),
    rawRows: async () => db.prepare('SELECT * FROM usage_events').all() as Record<string, unknown>[],
    columnNames: async () => (db.prepare("SELECT name FROM pragma_table_info('usage_events')").all() as { name: string }[]).map((row) => row.name),
    close: databases.close,
  };
});

usageLedgerContract(t, 'KyselyUsageLedger on PostgreSQL', async () => {
  const databases = await postgresDatabases();
  const { db } = databases;
  const storeDb = postgresStoreDb(db);
  return {
    ledger: new KyselyUsageLedger(storeDb),
    instanceAlive: instances(storeDb),
    jobStatus: jobs(storeDb),
    another: async () => new KyselyUsageLedger(postgresStoreDb(await databases.open())),
    rawRows: async () => (await db.query('SELECT * FROM usage_events')).rows,
    columnNames: async () =>
      (
        await db.query<{ column_name: string }>(
          "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'usage_events'",
        )
      ).rows.map((row) => row.column_name),
    close: databases.close,
  };
});
