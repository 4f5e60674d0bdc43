// The WebhookSecretStore contract (contract/webhook-secret-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';
import { PgKeyStore } from '../../src/store/postgres/pg-key-store.js';
import { PgWebhookSecretStore } from '../../src/store/postgres/pg-webhook-secret-store.js';
import { SqliteKeyStore } from '../../src/store/sqlite/sqlite-key-store.js';
import { SqliteWebhookSecretStore } from '../../src/store/sqlite/sqlite-webhook-secret-store.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';
import { webhookSecretStoreContract } from './contract/webhook-secret-store-contract.js';

webhookSecretStoreContract(t, 'SqliteWebhookSecretStore', async (t, masterKey) => {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  const copy = db.prepare(`UPDATE webhook_secrets SET
      (ciphertext, iv, auth_tag) = (SELECT ciphertext, iv, auth_tag FROM webhook_secrets WHERE key_id = @fromKey AND version = @fromVersion)
    WHERE key_id = @toKey AND version = @toVersion`);
  return {
    secrets: new SqliteWebhookSecretStore(db, masterKey),
    keys: new SqliteKeyStore(db),
    withMasterKey: (other) => new SqliteWebhookSecretStore(db, other),
    another: async () => new SqliteWebhookSecretStore(await databases.open(), masterKey),
    rawSecretRows: async (keyId) => db.prepare('SELECT * FROM webhook_secrets WHERE key_id = ? ORDER BY version').all(keyId) as Array<Record<string, unknown>>,
    copySealed: async (from, to) => {
      copy.run({ fromKey: from.keyId, fromVersion: from.version, toKey: to.keyId, toVersion: to.version });
    },
    close: databases.close,
  };
});

webhookSecretStoreContract(t, 'PgWebhookSecretStore', async (_t, masterKey) => {
  const databases = await postgresDatabases();
  const { db } = databases;
  return {
    secrets: new PgWebhookSecretStore(db, masterKey),
    keys: new PgKeyStore(db),
    withMasterKey: (other) => new PgWebhookSecretStore(db, other),
    another: async () => new PgWebhookSecretStore(await databases.open(), masterKey),
    rawSecretRows: async (keyId) => (await db.query('SELECT * FROM webhook_secrets WHERE key_id = $1 ORDER BY version', [keyId])).rows,
    copySealed: async (from, to) => {
      await db.query(
        `UPDATE webhook_secrets SET (ciphertext, iv, auth_tag) =
            (SELECT ciphertext, iv, auth_tag FROM webhook_secrets WHERE key_id = $1 AND version = $2)
          WHERE key_id = $3 AND version = $4`,
        [from.keyId, from.version, to.keyId, to.version],
      );
    },
    close: databases.close,
  };
});
