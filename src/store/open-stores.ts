// Opens the stores a process works with, on SQLite in the data folder (the embedded default: one
// server per database) or on PostgreSQL (SVC_DATABASE_URL: any number of API and worker processes).
// The one place that picks an implementation; everything above it sees only the interfaces.
import { mkdirSync } from 'node:fs';
import type { IdempotencyStore } from './idempotency-store.js';
import type { InstanceRegistry } from './instance-registry.js';
import { InProcessJobNotices, type JobNotices } from './job-notices.js';
import type { JobStore } from './job-store.js';
import type { KeyStore } from './key-store.js';
import type { RealtimeSeatStore } from './realtime-seat-store.js';
import { KyselyIdempotencyStore } from './kysely/kysely-idempotency-store.js';
import { postgresStoreDb, sqliteStoreDb } from './kysely/store-db.js';
import { openPostgres } from './postgres/database.js';
import { PgJobNotices } from './postgres/pg-job-notices.js';
import { PgJobStore } from './postgres/pg-job-store.js';
import { PgKeyStore } from './postgres/pg-key-store.js';
import { PgRealtimeSeatStore } from './postgres/pg-realtime-seat-store.js';
import { PgWebhookSecretStore } from './postgres/pg-webhook-secret-store.js';
import { databasePath, openDatabase } from './sqlite/database.js';
import { SqliteJobStore } from './sqlite/sqlite-job-store.js';
import { SqliteKeyStore } from './sqlite/sqlite-key-store.js';
import { SqliteRealtimeSeatStore } from './sqlite/sqlite-realtime-seat-store.js';
import { SqliteWebhookSecretStore } from './sqlite/sqlite-webhook-secret-store.js';
import type { UsageLedger } from './usage-ledger.js';
import type { BillingSettingsStore } from './billing-settings-store.js';
import { PgUsageLedger } from './postgres/pg-usage-ledger.js';
import { PgBillingSettingsStore } from './postgres/pg-billing-settings-store.js';
import { SqliteUsageLedger } from './sqlite/sqlite-usage-ledger.js';
import { SqliteBillingSettingsStore } from './sqlite/sqlite-billing-settings-store.js';
import type { WebhookOutbox } from './webhook-outbox.js';
import type { WebhookSecretStore } from './webhook-secret-store.js';
import { KyselyInstanceRegistry } from './kysely/kysely-instance-registry.js';
import { KyselyWebhookOutbox } from './kysely/kysely-webhook-outbox.js';

export interface Stores {
  /** `sqlite`: this process is the only server on its database (instances other than it are dead at start). */
  kind: 'sqlite' | 'postgres';
  keys: KeyStore;
  jobs: JobStore;
  idempotency: IdempotencyStore;
  webhookSecrets: WebhookSecretStore;
  outbox: WebhookOutbox;
  instances: InstanceRegistry;
  /** Realtime sessions held per project, counted across the processes on this database. */
  seats: RealtimeSeatStore;
  /** Work done, metered once per unit (counters only). */
  usage: UsageLedger;
  /** Plans' and keys' billing terms, credit, the period start day. */
  billing: BillingSettingsStore;
  /** Wake-ups between the processes sharing the database (job changed, work queued). */
  notices: JobNotices;
  /** Whether the database answers now (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreLocation {
  /** This process's instance id: uploads it receives and idempotency claims it makes are marked with it. */
  instanceId: string;
  dataDir: string;
  /** A postgres:// URL, or null for SQLite in `dataDir`. */
  databaseUrl: string | null;
  /**
   * Seals webhook signing secrets at rest (see webhooks/master-key.ts). Read when the secret store
   * is first used, so commands that never touch secrets never create the data folder's key file.
   */
  webhookMasterKey: () => Buffer;
}

export async function openStores(location: StoreLocation): Promise<Stores> {
  if (location.databaseUrl !== null) {
    const db = await openPostgres(location.databaseUrl);
    let notices: JobNotices;
    try {
      notices = await PgJobNotices.open(location.databaseUrl, db);
    } catch (error) {
      await db.close();
      throw error;
    }
    let secrets: WebhookSecretStore | null = null;
    return {
      kind: 'postgres',
      keys: new PgKeyStore(db),
      jobs: new PgJobStore(db, { instanceId: location.instanceId }),
      idempotency: new KyselyIdempotencyStore(postgresStoreDb(db), { owner: location.instanceId }),
      get webhookSecrets() {
        return (secrets ??= new PgWebhookSecretStore(db, location.webhookMasterKey()));
      },
      outbox: new KyselyWebhookOutbox(postgresStoreDb(db)),
      instances: new KyselyInstanceRegistry(postgresStoreDb(db)),
      seats: new PgRealtimeSeatStore(db, { instanceId: location.instanceId }),
      usage: new PgUsageLedger(db),
      billing: new PgBillingSettingsStore(db),
      notices,
      ping: async () => {
        await db.query('SELECT 1');
      },
      close: async () => {
        await notices.close();
        await db.close();
      },
    };
  }
  mkdirSync(location.dataDir, { recursive: true });
  const db = openDatabase(databasePath(location.dataDir));
  let secrets: WebhookSecretStore | null = null;
  return {
    kind: 'sqlite',
    keys: new SqliteKeyStore(db),
    jobs: new SqliteJobStore(db, { instanceId: location.instanceId }),
    idempotency: new KyselyIdempotencyStore(sqliteStoreDb(db), { owner: location.instanceId }),
    get webhookSecrets() {
      return (secrets ??= new SqliteWebhookSecretStore(db, location.webhookMasterKey()));
    },
    outbox: new KyselyWebhookOutbox(sqliteStoreDb(db)),
    instances: new KyselyInstanceRegistry(sqliteStoreDb(db)),
    seats: new SqliteRealtimeSeatStore(db, { instanceId: location.instanceId }),
    usage: new SqliteUsageLedger(db),
    billing: new SqliteBillingSettingsStore(db),
    notices: new InProcessJobNotices(),
    ping: async () => {
      db.prepare('SELECT 1').get();
    },
    close: async () => {
      if (db.open) db.close();
    },
  };
}
