// The administrative commands' access to the service database: the same file `svc-stt serve` uses
// (<SVC_DATA_DIR>/svc-stt.db), opened for one command and closed after it.
import { loadDataDir, loadWebhookMasterKeySetting } from '../config/load-config.js';
import { isKeyStoreError } from '../store/key-store-error.js';
import { databasePath, openDatabase } from '../store/sqlite/database.js';
import type { KeyRevocationStores } from '../jobs/key-revocation.js';
import { LocalBlobStore, localBlobRoot } from '../store/local-blob-store.js';
import { SqliteJobStore } from '../store/sqlite/sqlite-job-store.js';
import { SqliteKeyStore } from '../store/sqlite/sqlite-key-store.js';
import { SqliteWebhookOutbox } from '../store/sqlite/sqlite-webhook-outbox.js';
import { SqliteWebhookSecretStore } from '../store/sqlite/sqlite-webhook-secret-store.js';
import { loadWebhookMasterKey } from '../webhooks/master-key.js';
import { UsageError } from './usage-error.js';

export async function withKeyStore<T>(run: (keys: SqliteKeyStore) => T | Promise<T>): Promise<T> {
  const db = openDatabase(databasePath(loadDataDir(process.env)));
  try {
    return await run(new SqliteKeyStore(db));
  } catch (error) {
    // A refused value is a mistake on the command line (exit 2); a missing key stays an error (1).
    if (isKeyStoreError(error) && error.code === 'invalid_argument') throw new UsageError(error.message);
    throw error;
  } finally {
    db.close();
  }
}

/** Sealed under the same master key the server uses: SVC_WEBHOOK_MASTER_KEY, else the data folder's. */
export async function withWebhookSecretStore<T>(run: (secrets: SqliteWebhookSecretStore) => T | Promise<T>): Promise<T> {
  const dataDir = loadDataDir(process.env);
  const masterKey = loadWebhookMasterKey(dataDir, loadWebhookMasterKeySetting(process.env));
  const db = openDatabase(databasePath(dataDir));
  try {
    return await run(new SqliteWebhookSecretStore(db, masterKey));
  } finally {
    db.close();
  }
}

/**
 * What key revocation changes (src/jobs/key-revocation.ts): the keys, jobs and webhook outbox in the
 * database and the job audio in the data folder's blob store — the same files a running server uses.
 */
export async function withKeyRevocationStores<T>(run: (stores: KeyRevocationStores) => T | Promise<T>): Promise<T> {
  const dataDir = loadDataDir(process.env);
  const db = openDatabase(databasePath(dataDir));
  try {
    return await run({
      keys: new SqliteKeyStore(db),
      jobs: new SqliteJobStore(db),
      outbox: new SqliteWebhookOutbox(db),
      blobs: new LocalBlobStore(localBlobRoot(dataDir)),
    });
  } finally {
    db.close();
  }
}
