// The master key that encrypts webhook signing secrets at rest (secret-cipher.ts). An operator may set
// it (SVC_WEBHOOK_MASTER_KEY, e.g. from a secrets manager, so a copied data folder alone does not
// reveal the secrets); otherwise it is generated once into the data folder (mode 0600), like the
// upload signing secret. Created atomically: the server and an admin command starting on a fresh
// folder agree on one key. Losing it makes every stored secret unreadable, so it is never replaced.
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
  try {
    return readKey(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, randomBytes(KEY_BYTES).toString('base64'), { mode: 0o600, flag: 'wx' });
  // The umask may have narrowed the mode further, never widened it; make it exactly 0600.
  chmodSync(temp, 0o600);
  try {
    // link() refuses to replace: the first process to get here wins, the others read its key.
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  return readKey(path);
}

function readKey(path: string): Buffer {
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new Error(`${path}: the webhook master key is damaged (expected base64 of ${KEY_BYTES} bytes); restore it from a backup — without it the stored webhook signing secrets cannot be read`);
  }
  return key;
}
