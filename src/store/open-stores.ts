// Opens the stores a process works with, on SQLite in the data folder (the embedded default: one
// server per database) or on PostgreSQL (SVC_DATABASE_URL: any number of API and worker processes).
// The one place that picks a database; the stores are the same Kysely ones on either, over one
// Kysely instance per process (kysely/store-db.ts), and everything above sees only the interfaces.
import { sql } from 'kysely';

import type { BillingSettingsStore } from './billing-settings-store.js';
import type { ConsoleAccountStore } from './console-account-store.js';
import type { ConsoleSecondFactorStore } from './console-second-factor-store.js';
import { ContentSealer } from './content-sealer.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { InstanceRegistry } from './instance-registry.js';
import { InProcessJobNotices, type JobNotices } from './job-notices.js';
import type { JobStore } from './job-store.js';
import { KeyProviderChain } from './key-provider-chain.js';
import type { KeyStore } from './key-store.js';
import { AwsKmsKeyProvider } from './kms/aws-kms-key-provider.js';
import type { KmsSettings } from './kms/kms-settings.js';
import { KyselyBillingSettingsStore } from './kysely/kysely-billing-settings-store.js';
import { KyselyConsoleAccountStore } from './kysely/kysely-console-account-store.js';
import { KyselyConsoleSecondFactorStore } from './kysely/kysely-console-second-factor-store.js';
import { KyselyIdempotencyStore } from './kysely/kysely-idempotency-store.js';
import { KyselyInstanceRegistry } from './kysely/kysely-instance-registry.js';
import { KyselyJobStore } from './kysely/kysely-job-store.js';
import { KyselyKeyStore } from './kysely/kysely-key-store.js';
import { KyselyPlainBlobSealing } from './kysely/kysely-plain-blob-sealing.js';
import { KyselyPlainContentSealing } from './kysely/kysely-plain-content-sealing.js';
import { KyselyRealtimeClientSecretStore } from './kysely/kysely-realtime-client-secret-store.js';
import { KyselyRealtimeSeatStore } from './kysely/kysely-realtime-seat-store.js';
import { KyselyTenantErasureStore } from './kysely/kysely-tenant-erasure-store.js';
import { KyselyTenantKeys } from './kysely/kysely-tenant-keys.js';
import { KyselyUsageLedger } from './kysely/kysely-usage-ledger.js';
import { KyselyVoiceProfileStore } from './kysely/kysely-voice-profile-store.js';
import { KyselyWebhookOutbox } from './kysely/kysely-webhook-outbox.js';
import { KyselyWebhookSecretStore } from './kysely/kysely-webhook-secret-store.js';
import { postgresStoreDb, sqliteStoreDb } from './kysely/store-db.js';
import type { StoreDb } from './kysely/store-schema.js';
import { type KeyProvider, LocalKeyProvider } from './master-keys.js';
import type { PlainBlobSealing, PlainContentSealing } from './plain-content-sealing.js';
import { openPostgres } from './postgres/database.js';
import { PgJobNotices } from './postgres/pg-job-notices.js';
import { makePrivateDir } from './private-mode.js';
import type { RealtimeClientSecretStore } from './realtime-client-secret-store.js';
import type { RealtimeSeatStore } from './realtime-seat-store.js';
import type { TenantBlobs } from './sealed-blob-store.js';
import { MissingMasterKeyError } from './sealing-error.js';
import { databasePath, openDatabase } from './sqlite/database.js';
import type { TenantErasureStore } from './tenant-erasure-store.js';
import type { TenantKeys } from './tenant-keys.js';
import type { UsageLedger } from './usage-ledger.js';
import type { VoiceProfileStore } from './voice-profile-store.js';
import type { WebhookOutbox } from './webhook-outbox.js';
import type { WebhookSecretStore } from './webhook-secret-store.js';

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
  /** Short-lived, single-use secrets a key mints for a realtime session opened without it (a browser's). */
  clientSecrets: RealtimeClientSecretStore;
  /** Work done, metered once per unit (counters only). */
  usage: UsageLedger;
  /** Plans' and keys' billing terms, credit, the period start day. */
  billing: BillingSettingsStore;
  /** The developer console's accounts: invites, passwords' hashes, lockouts, sessions. */
  consoleAccounts: ConsoleAccountStore;
  /** The console's second factor: TOTP secrets (sealed under the master key), recovery codes, pending sign-ins, tenants' requirement. */
  consoleSecondFactors: ConsoleSecondFactorStore;
  /** Tenants' enrolled voices (speaker statistics, never audio) for known speakers. */
  voices: VoiceProfileStore;
  /** Tenants' data keys, wrapped under the master key (issue 48). */
  tenantKeys: TenantKeys;
  /** Deletes every row of a tenant at once (`svc-stt tenants erase`). */
  tenantErasure: TenantErasureStore;
  /** Seals content at rest under its tenant's data key (the stores above use it; so do the blobs). */
  sealer: ContentSealer;
  /** Finds and seals content written before sealing existed (the background sealing's batches). */
  plainContent: PlainContentSealing;
  /** The same for the blobs the jobs' rows name, through `blobs` (the blob store the process seals with). */
  plainBlobs(blobs: TenantBlobs): PlainBlobSealing;
  /**
   * Throws MissingMasterKeyError, naming the ids, when data keys are wrapped under a master key this
   * process was not given: content sealed under them could not be read (run at start).
   */
  requireMasterKeys(): Promise<void>;
  /** Wake-ups between the processes sharing the database (job changed, work queued). */
  notices: JobNotices;
  /** Whether the database answers now (readiness). */
  ping(): Promise<void>;
  /**
   * The database server's clock, epoch milliseconds (PostgreSQL): the one clock that processes on
   * several machines agree on for leases and expiries (service/database-clock.ts). Null on SQLite,
   * whose only process shares the database's clock.
   */
  databaseTimeMs: (() => Promise<number>) | null;
  close(): Promise<void>;
}

export interface StoreLocation {
  /** This process's instance id: uploads it receives and idempotency claims it makes are marked with it. */
  instanceId: string;
  dataDir: string;
  /** A postgres:// URL, or null for SQLite in `dataDir`. */
  databaseUrl: string | null;
  /**
   * Seals webhook signing secrets and (through a key derived from it) console TOTP secrets at rest
   * (see webhooks/master-key.ts). Read when a secret is first sealed or opened, so commands that never
   * touch secrets never create the data folder's key file.
   */
  webhookMasterKey: () => Buffer;
  /**
   * Master keys being rotated away from (SVC_PREVIOUS_MASTER_KEYS): they still unwrap data keys and open
   * secrets they sealed; nothing new is sealed under them. Default none.
   */
  previousMasterKeys?: () => readonly Buffer[];
  /** AWS KMS keys (SVC_KMS_*): with an active one it wraps new data keys, the local keys above only unwrap. Default none. */
  kms?: KmsSettings | null;
  /** Epoch milliseconds, for what the stores judge by time (a key's scheduled revocation); default Date.now. */
  clock?: () => number;
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
    const storeDb = postgresStoreDb(db);
    return storesOn(storeDb, location, {
      kind: 'postgres',
      notices,
      databaseTimeMs: async () => {
        const { rows } = await sql<{ ms: number }>`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`.execute(storeDb);
        return Number(rows[0].ms);
      },
      close: async () => {
        await notices.close();
        await db.close();
      },
    });
  }
  makePrivateDir(location.dataDir);
  const db = openDatabase(databasePath(location.dataDir));
  return storesOn(sqliteStoreDb(db), location, {
    kind: 'sqlite',
    notices: new InProcessJobNotices(),
    databaseTimeMs: null,
    close: async () => {
      if (db.open) db.close();
    },
  });
}

/** Every store on `db`; what differs per database (`kind`, the notices, closing) comes from the caller. */
function storesOn(db: StoreDb, location: StoreLocation, own: Pick<Stores, 'kind' | 'notices' | 'databaseTimeMs' | 'close'>): Stores {
  let secrets: WebhookSecretStore | null = null;
  let provider: KeyProvider | null = null;
  const previous = location.previousMasterKeys ?? (() => []);
  const masterKeys = () => (provider ??= masterKeyProvider(location));
  const tenantKeys = new KyselyTenantKeys(db, masterKeys, location.clock);
  const sealer = new ContentSealer(tenantKeys);
  return {
    ...own,
    close: async () => {
      provider?.close?.();
      await own.close();
    },
    tenantKeys,
    tenantErasure: new KyselyTenantErasureStore(db),
    sealer,
    requireMasterKeys: async () => {
      const missing = (await tenantKeys.masterKeyIdsInUse()).filter((id) => !masterKeys().has(id));
      if (missing.length > 0) throw new MissingMasterKeyError(missing);
    },
    keys: new KyselyKeyStore(db, sealer, location.clock),
    jobs: new KyselyJobStore(db, sealer, { instanceId: location.instanceId }),
    idempotency: new KyselyIdempotencyStore(db, sealer, { owner: location.instanceId }),
    get webhookSecrets() {
      return (secrets ??= new KyselyWebhookSecretStore(db, location.webhookMasterKey(), previous()));
    },
    outbox: new KyselyWebhookOutbox(db),
    instances: new KyselyInstanceRegistry(db),
    seats: new KyselyRealtimeSeatStore(db, { instanceId: location.instanceId }),
    clientSecrets: new KyselyRealtimeClientSecretStore(db),
    usage: new KyselyUsageLedger(db),
    billing: new KyselyBillingSettingsStore(db),
    consoleAccounts: new KyselyConsoleAccountStore(db),
    consoleSecondFactors: new KyselyConsoleSecondFactorStore(db, location.webhookMasterKey, previous),
    voices: new KyselyVoiceProfileStore(db, sealer),
    plainContent: new KyselyPlainContentSealing(db, sealer),
    plainBlobs: (blobs) => new KyselyPlainBlobSealing(db, blobs),
    ping: async () => {
      await sql`SELECT 1`.execute(db);
    },
  };
}

/**
 * The local master keys (the webhook master key, its id derived from the key, and the previous ones),
 * with the KMS keys when there are any: the active KMS key then wraps, and the local keys only unwrap
 * what they wrapped before (a rotation moves it: `svc-stt master-key rotate`).
 */
function masterKeyProvider(location: StoreLocation): KeyProvider {
  const local = new LocalKeyProvider([location.webhookMasterKey(), ...(location.previousMasterKeys?.() ?? [])]);
  const kms = location.kms;
  const kmsKeyIds = kms ? [...(kms.keyId === null ? [] : [kms.keyId]), ...kms.previousKeyIds] : [];
  if (!kms || kmsKeyIds.length === 0) return local;
  const remote = new AwsKmsKeyProvider(kmsKeyIds, kms);
  return kms.keyId === null ? new KeyProviderChain(local, [remote]) : new KeyProviderChain(remote, [local]);
}
