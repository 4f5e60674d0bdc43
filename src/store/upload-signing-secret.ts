// The server secret that signs presigned upload forms, kept in the data folder (mode 0600) so forms
// handed out before a restart stay valid after it. Created once, atomically: two processes starting
// on a fresh folder agree on one secret.
import { join } from 'node:path';

import { loadOrCreateSecretFile } from './generated-secret-file.js';

export const UPLOAD_SIGNING_SECRET_FILE = 'upload-signing.key';
const SECRET_BYTES = 32;

export function loadUploadSigningSecret(dataDir: string): Buffer {
  const path = join(dataDir, UPLOAD_SIGNING_SECRET_FILE);
  return loadOrCreateSecretFile(path, SECRET_BYTES, (secret) => {
    if (secret.length < SECRET_BYTES)
      throw new Error(`${path}: the upload signing secret is damaged; delete it to make a new one (open upload forms stop working)`);
  });
}
