// The job-store harnesses (contract/job-store-contract.ts) for SQLite and PostgreSQL. Both the
// JobStore and the WebhookOutbox contracts run on them, since outbox events are written by the job
// store's `succeed`: one definition here keeps the two runners from building them twice.
import type { Test } from 'tap';
import { PgJobStore } from '../../../src/store/postgres/pg-job-store.js';
import { PgUsageLedger } from '../../../src/store/postgres/pg-usage-ledger.js';
import { SqliteJobStore } from '../../../src/store/sqlite/sqlite-job-store.js';
import { SqliteUsageLedger } from '../../../src/store/sqlite/sqlite-usage-ledger.js';
import type { JobStoresHarness } from './job-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './store-databases.js';
import { KyselyInstanceRegistry } from '../../../src/store/kysely/kysely-instance-registry.js';
import { postgresStoreDb, sqliteStoreDb } from '../../../src/store/kysely/store-db.js';
import { KyselyWebhookOutbox } from '../../../src/store/kysely/kysely-webhook-outbox.js';

const RAW_DELIVERY = `INSERT INTO webhook_deliveries (event_id, job_id, key_id, secret_version, url, body, state, created_at_ms)
  VALUES ($1, $2, 'key_AAAAAAAAAAAA', 1, 'https://hooks.example.com/raw', 'raw', $3, 0)`;

export async function sqliteJobStores(t: Test): Promise<JobStoresHarness> {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  return {
    jobs: new SqliteJobStore(db),
    outbox: new KyselyWebhookOutbox(sqliteStoreDb(db)),
    usage: new SqliteUsageLedger(db),
    instances: new KyselyInstanceRegistry(sqliteStoreDb(db)),
    ownedBy: (instanceId) => new SqliteJobStore(db, { instanceId }),
    another: async () => {
      const other = await databases.open();
      return { jobs: new SqliteJobStore(other), outbox: new KyselyWebhookOutbox(sqliteStoreDb(other)), usage: new SqliteUsageLedger(other) };
    },
    reopen: async () => {
      db.close();
      return new SqliteJobStore(await databases.open());
    },
    insertDelivery: async ({ eventId, jobId, state }) => {
      db.prepare(RAW_DELIVERY.replace(/\$\d/g, '?')).run(eventId, jobId, state);
    },
    close: databases.close,
  };
}

export async function postgresJobStores(): Promise<JobStoresHarness> {
  const databases = await postgresDatabases();
  const { db } = databases;
  return {
    jobs: new PgJobStore(db),
    outbox: new KyselyWebhookOutbox(postgresStoreDb(db)),
    usage: new PgUsageLedger(db),
    instances: new KyselyInstanceRegistry(postgresStoreDb(db)),
    ownedBy: (instanceId) => new PgJobStore(db, { instanceId }),
    another: async () => {
      const other = await databases.open();
      return { jobs: new PgJobStore(other), outbox: new KyselyWebhookOutbox(postgresStoreDb(other)), usage: new PgUsageLedger(other) };
    },
    reopen: async () => {
      await db.close();
      return new PgJobStore(await databases.open());
    },
    insertDelivery: async ({ eventId, jobId, state }) => {
      await db.query(RAW_DELIVERY, [eventId, jobId, state]);
    },
    close: databases.close,
  };
}
