// The job-store harnesses (contract/job-store-contract.ts) for SQLite and PostgreSQL. Both the
// JobStore and the WebhookOutbox contracts run on them, since outbox events are written by the job
// store's `succeed`: one definition here keeps the two runners from building them twice.
import type { Test } from 'tap';

import { KyselyInstanceRegistry } from '../../../src/store/kysely/kysely-instance-registry.js';
import { KyselyUsageLedger } from '../../../src/store/kysely/kysely-usage-ledger.js';
import { KyselyWebhookOutbox } from '../../../src/store/kysely/kysely-webhook-outbox.js';
import { postgresStoreDb, sqliteStoreDb } from '../../../src/store/kysely/store-db.js';
import { testJobStore } from '../../helpers/test-sealer.js';
import type { JobStoresHarness } from './job-store-contract.js';
import { postgresDatabases, sqliteDatabases } from './store-databases.js';

const RAW_DELIVERY = `INSERT INTO webhook_deliveries (event_id, job_id, key_id, secret_version, url, body, state, created_at_ms)
  VALUES ($1, $2, 'key_AAAAAAAAAAAA', 1, 'https://hooks.example.com/raw', 'raw', $3, 0)`;

export async function sqliteJobStores(t: Test): Promise<JobStoresHarness> {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  return {
    jobs: testJobStore(sqliteStoreDb(db)),
    outbox: new KyselyWebhookOutbox(sqliteStoreDb(db)),
    usage: new KyselyUsageLedger(sqliteStoreDb(db)),
    instances: new KyselyInstanceRegistry(sqliteStoreDb(db)),
    ownedBy: (instanceId) => testJobStore(sqliteStoreDb(db), { instanceId }),
    another: async () => {
      const other = await databases.open();
      return {
        jobs: testJobStore(sqliteStoreDb(other)),
        outbox: new KyselyWebhookOutbox(sqliteStoreDb(other)),
        usage: new KyselyUsageLedger(sqliteStoreDb(other)),
      };
    },
    reopen: async () => {
      db.close();
      return testJobStore(sqliteStoreDb(await databases.open()));
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
    jobs: testJobStore(postgresStoreDb(db)),
    outbox: new KyselyWebhookOutbox(postgresStoreDb(db)),
    usage: new KyselyUsageLedger(postgresStoreDb(db)),
    instances: new KyselyInstanceRegistry(postgresStoreDb(db)),
    ownedBy: (instanceId) => testJobStore(postgresStoreDb(db), { instanceId }),
    another: async () => {
      const other = await databases.open();
      return {
        jobs: testJobStore(postgresStoreDb(other)),
        outbox: new KyselyWebhookOutbox(postgresStoreDb(other)),
        usage: new KyselyUsageLedger(postgresStoreDb(other)),
      };
    },
    reopen: async () => {
      await db.close();
      return testJobStore(postgresStoreDb(await databases.open()));
    },
    insertDelivery: async ({ eventId, jobId, state }) => {
      await db.query(RAW_DELIVERY, [eventId, jobId, state]);
    },
    close: databases.close,
  };
}
