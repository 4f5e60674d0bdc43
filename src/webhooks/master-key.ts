// The master key that encrypts webhook signing secrets at rest (src/store/secret-cipher.ts). An
// operator may set it (SVC_WEBHOOK_MASTER_KEY, e.g. from a secrets manager, so a copied data folder
// alone does not reveal the secrets); otherwise it is generated once into the data folder (mode
// 0600), like the upload signing secret. Losing it makes every stored secret unreadable, so it is
// never replaced.
import { join } from 'node:path';

import { loadOrCreateSecretFile } from '../store/generated-secret-file.js';

export const WEBHOOK_MASTER_KEY_FILE = 'webhook-master.key';
const KEY_BYTES = 32;

/** config.webhooks.masterKey when set; else DATA_DIR/webhook-master.key, created once (0600, atomic). */
export function loadWebhookMasterKey(dataDir: string, configured: string | null): Buffer {
  if (configured !== null) {
    const key = Buffer.from(configured, 'base64');
    if (key.length !== KEY_BYTES) throw new Error(`SVC_WEBHOOK_MASTER_KEY must be base64 of exactly ${KEY_BYTES} bytes`);
    return key;
  }
  const path = join(dataDir, WEBHOOK_MASTER_KEY_FILE);
  return loadOrCreateSecretFile(path, KEY_BYTES, (key) => {
    if (key.length !== KEY_BYTES) {
      throw new Error(
        `${path}: the webhook master key is damaged (expected base64 of ${KEY_BYTES} bytes); ` +
          `restore it from a backup — without it the stored webhook signing secrets cannot be read`,
      );
    }
  });
}
