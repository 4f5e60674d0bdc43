// The WebhookSecretStore contract (contract/webhook-secret-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';

import { KyselyWebhookSecretStore } from '../../src/store/kysely/kysely-webhook-secret-store.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { testKeyStore } from '../helpers/test-sealer.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';
import { webhookSecretStoreContract } from './contract/webhook-secret-store-contract.js';

webhookSecretStoreContract(t, 'KyselyWebhookSecretStore on SQLite', async (t, masterKey) => {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  const copy = db.prepare(`UPDATE webhook_secrets SET
      (ciphertext, iv, auth_tag) = (SELECT ciphertext, iv, auth_tag FROM webhook_secrets WHERE key_id = @fromKey AND version = @fromVersion)
    WHERE key_id = @toKey AND version = @toVersion`);
  return {
    secrets: new KyselyWebhookSecretStore(sqliteStoreDb(db), masterKey),
    keys: testKeyStore(sqliteStoreDb(db)),
    withMasterKey: (other) => new KyselyWebhookSecretStore(sqliteStoreDb(db), other),
    another: async () => new KyselyWebhookSecretStore(sqliteStoreDb(await databases.open()), masterKey),
    rawSecretRows: async (keyId) => db.prepare('SELECT * FROM webhook_secrets WHERE key_id = ? ORDER BY version').all(keyId) as Array<Record<string, unknown>>,
    copySealed: async (from, to) => {
      copy.run({ fromKey: from.keyId, fromVersion: from.version, toKey: to.keyId, toVersion: to.version });
    },
    close: databases.close,
  };
});

webhookSecretStoreContract(t, 'KyselyWebhookSecretStore on PostgreSQL', async (_t, masterKey) => {
  const databases = await postgresDatabases();
  const { db } = databases;
  return {
    secrets: new KyselyWebhookSecretStore(postgresStoreDb(db), masterKey),
    keys: testKeyStore(postgresStoreDb(db)),
    withMasterKey: (other) => new KyselyWebhookSecretStore(postgresStoreDb(db), other),
    another: async () => new KyselyWebhookSecretStore(postgresStoreDb(await databases.open()), masterKey),
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
