// The server secret that signs presigned upload forms, kept in the data folder (mode 0600) so forms
// handed out before a restart stay valid after it. Created once, atomically: two processes starting
// on a fresh folder agree on one secret.
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const UPLOAD_SIGNING_SECRET_FILE = 'upload-signing.key';
const SECRET_BYTES = 32;

export function loadUploadSigningSecret(dataDir: string): Buffer {
  const path = join(dataDir, UPLOAD_SIGNING_SECRET_FILE);
  try {
    return readSecret(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, randomBytes(SECRET_BYTES).toString('base64'), { mode: 0o600, flag: 'wx' });
  chmodSync(temp, 0o600);
  try {
    // link() refuses to replace: the first process to get here wins, the others read its secret.
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  return readSecret(path);
}

function readSecret(path: string): Buffer {
  const secret = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (secret.length < SECRET_BYTES) throw new Error(`${path}: the upload signing secret is damaged; delete it to make a new one (open upload forms stop working)`);
  return secret;
}
