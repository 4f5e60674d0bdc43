// The administrative commands' access to the service's stores: the same database `svc-stt serve`
// uses (SVC_DATABASE_URL, else <SVC_DATA_DIR>/svc-stt.db), opened for one command and closed after it.
import type { TenantErasureStores } from '../application/erase-tenant.js';
import type { MasterKeyRotationStores } from '../application/rotate-master-key.js';
import { UsageBilling } from '../billing/usage-billing.js';
import {
  loadDatabaseUrl,
  loadDataDir,
  loadKmsSettings,
  loadPreviousMasterKeysSetting,
  loadS3Settings,
  loadWebhookMasterKeySetting,
} from '../config/load-config.js';
import type { KeyRevocationStores } from '../jobs/key-revocation.js';
import type { BillingSettingsStore } from '../store/billing-settings-store.js';
import type { ConsoleAccountStore } from '../store/console-account-store.js';
import type { ConsoleSecondFactorStore } from '../store/console-second-factor-store.js';
import type { KeyStore } from '../store/key-store.js';
import { isKeyStoreError } from '../store/key-store-error.js';
import { kmsMasterKeyId } from '../store/kms/aws-kms-key-provider.js';
import { masterKeyIdOf } from '../store/master-keys.js';
import { openBlobStore } from '../store/open-blob-store.js';
import { openStores, type Stores } from '../store/open-stores.js';
import type { UsageLedger } from '../store/usage-ledger.js';
import type { WebhookOutbox } from '../store/webhook-outbox.js';
import type { WebhookSecretStore } from '../store/webhook-secret-store.js';
import { loadWebhookMasterKey } from '../webhooks/master-key.js';
import { UsageError } from './usage-error.js';

/** Opens the stores for one command; the CLI makes no claims, so it registers no instance. */
async function withStores<T>(run: (stores: Stores, dataDir: string) => T | Promise<T>): Promise<T> {
  const dataDir = loadDataDir(process.env);
  // Sealed under the same master key the server uses: SVC_WEBHOOK_MASTER_KEY, else the data folder's.
  const webhookMasterKey = () => loadWebhookMasterKey(dataDir, loadWebhookMasterKeySetting(process.env));
  const previousMasterKeys = () => loadPreviousMasterKeysSetting(process.env).map((key) => Buffer.from(key, 'base64'));
  const kms = loadKmsSettings(process.env);
  const stores = await openStores({ instanceId: 'cli', dataDir, databaseUrl: loadDatabaseUrl(process.env), webhookMasterKey, previousMasterKeys, kms });
  try {
    return await run(stores, dataDir);
  } finally {
    await stores.close();
  }
}

export async function withKeyStore<T>(run: (keys: KeyStore) => T | Promise<T>): Promise<T> {
  return withStores(({ keys }) => administering(() => run(keys)));
}

/** Plans' and keys' billing terms, credit and the period start day. */
export async function withBillingSettings<T>(run: (settings: BillingSettingsStore) => T | Promise<T>): Promise<T> {
  return withStores(({ billing }) => administering(() => run(billing)));
}

/** What the usage report reads: the keys, the ledger, and the billing desk over them. */
export async function withUsageStores<T>(
  run: (stores: { keys: KeyStore; ledger: UsageLedger; billing: UsageBilling; settings: BillingSettingsStore }) => T | Promise<T>,
): Promise<T> {
  return withStores(({ keys, usage, billing }) =>
    administering(() => run({ keys, ledger: usage, settings: billing, billing: new UsageBilling(usage, billing) })),
  );
}

async function administering<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    // A refused value is a mistake on the command line (exit 2); a missing key stays an error (1).
    if (isKeyStoreError(error) && error.code === 'invalid_argument') throw new UsageError(error.message);
    throw error;
  }
}

/** The developer console's accounts (invites, sign-ins, sessions). */
export async function withConsoleAccounts<T>(run: (accounts: ConsoleAccountStore) => T | Promise<T>): Promise<T> {
  return withStores(({ consoleAccounts }) => run(consoleAccounts));
}

/** What an invite reads: the console's accounts, and the keys (whose tenants are the ones that exist). */
export async function withConsoleInviteStores<T>(run: (stores: { accounts: ConsoleAccountStore; keys: KeyStore }) => T | Promise<T>): Promise<T> {
  return withStores(({ consoleAccounts, keys }) => run({ accounts: consoleAccounts, keys }));
}

/** The console's accounts and their second factors (a tenant's TOTP requirement). */
export async function withConsoleSecondFactors<T>(
  run: (stores: { accounts: ConsoleAccountStore; secondFactors: ConsoleSecondFactorStore }) => T | Promise<T>,
): Promise<T> {
  return withStores(({ consoleAccounts, consoleSecondFactors }) => run({ accounts: consoleAccounts, secondFactors: consoleSecondFactors }));
}

export async function withWebhookSecretStore<T>(run: (secrets: WebhookSecretStore) => T | Promise<T>): Promise<T> {
  return withStores(({ webhookSecrets }) => run(webhookSecrets));
}

export async function withWebhookOutbox<T>(run: (outbox: WebhookOutbox) => T | Promise<T>): Promise<T> {
  return withStores(({ outbox }) => run(outbox));
}

/**
 * What key revocation changes (src/jobs/key-revocation.ts): the keys, jobs and webhook outbox in the
 * database and the job audio in the server's blob store (the data folder, or SVC_S3_BUCKET).
 */
export async function withKeyRevocationStores<T>(run: (stores: KeyRevocationStores) => T | Promise<T>): Promise<T> {
  return withStores(async ({ keys, jobs, outbox }, dataDir) => {
    const opened = openBlobStore(dataDir, loadS3Settings(process.env));
    try {
      return await run({ keys, jobs, outbox, blobs: opened.blobs });
    } finally {
      opened.close();
    }
  });
}

/** What erasing a tenant deletes (src/application/erase-tenant.ts): its data keys, its rows, the blobs of its jobs. */
export async function withTenantErasureStores<T>(run: (stores: TenantErasureStores) => T | Promise<T>): Promise<T> {
  return withStores(async ({ tenantKeys, tenantErasure }, dataDir) => {
    const opened = openBlobStore(dataDir, loadS3Settings(process.env));
    try {
      return await administering(() => run({ tenantKeys, erasure: tenantErasure, blobs: opened.blobs }));
    } finally {
      opened.close();
    }
  });
}

/** A tenant's data keys and API keys (`tenants rotate-key`: a tenant is one with keys). */
export async function withTenantKeys<T>(run: (stores: Pick<Stores, 'tenantKeys' | 'keys'>) => T | Promise<T>): Promise<T> {
  return withStores((stores) => administering(() => run(stores)));
}

/**
 * What a master key rotation changes, with the ids of the configured keys: the active one (SVC_KMS_KEY_ID,
 * else the webhook master key), then those being rotated away from (SVC_PREVIOUS_MASTER_KEYS, SVC_KMS_PREVIOUS_KEY_IDS).
 * With a KMS key active the webhook master key is neither: it still seals the webhook and TOTP secrets.
 */
export async function withMasterKeyRotationStores<T>(
  run: (stores: MasterKeyRotationStores, keyIds: { active: string; previous: string[] }) => T | Promise<T>,
): Promise<T> {
  return withStores((stores, dataDir) => {
    const kms = loadKmsSettings(process.env);
    const local = masterKeyIdOf(loadWebhookMasterKey(dataDir, loadWebhookMasterKeySetting(process.env)));
    const active = kms?.keyId ? kmsMasterKeyId(kms.keyId) : local;
    const previous = [
      ...loadPreviousMasterKeysSetting(process.env).map((key) => masterKeyIdOf(Buffer.from(key, 'base64'))),
      ...(kms?.previousKeyIds ?? []).map(kmsMasterKeyId),
    ];
    return run(stores, { active, previous });
  });
}
