// Webhook signing secrets at rest: AES-256-GCM under the server's master key. HMAC signing needs the
// raw secret, so it is encrypted rather than hashed. The additional data names the row
// (`${keyId}:${version}`): a ciphertext copied into another key's or version's row fails to open
// instead of silently signing for the wrong one. Sealing is how the store keeps a secret, so it lives
// with the store.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

import { WebhookSecretError } from './webhook-secret-store.js';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
// 96-bit IVs are GCM's native size; a fresh random one per seal, never reused under the same key.
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SealedSecret {
  ciphertext: Buffer;
  iv: Buffer;
  authTag: Buffer;
}

export function sealSecret(masterKey: Buffer, aad: string, plain: Buffer): SealedSecret {
  requireMasterKey(masterKey);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, masterKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { ciphertext, iv, authTag: cipher.getAuthTag() };
}

/** Throws WebhookSecretError when the master key, the row (aad) or the stored bytes do not match. */
export function openSecret(masterKey: Buffer, aad: string, sealed: SealedSecret): Buffer {
  requireMasterKey(masterKey);
  try {
    const decipher = createDecipheriv(ALGORITHM, masterKey, sealed.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]);
  } catch {
    throw new WebhookSecretError(
      `webhook signing secret ${aad} cannot be decrypted: the master key does not match the one it was sealed with ` +
        '(was SVC_WEBHOOK_MASTER_KEY or <data dir>/webhook-master.key changed?), or the stored row is damaged',
    );
  }
}

/**
 * `sealed` opened under the first of `masterKeys` that opens it (the active key first, then those a
 * master key rotation still knows), with that key's index; the first key's error when none does.
 */
export function openSecretUnderAny(masterKeys: readonly Buffer[], aad: string, sealed: SealedSecret): { plain: Buffer; keyIndex: number } {
  let firstError: unknown = null;
  for (const [keyIndex, masterKey] of masterKeys.entries()) {
    try {
      return { plain: openSecret(masterKey, aad, sealed), keyIndex };
    } catch (error) {
      firstError ??= error;
    }
  }
  throw firstError;
}

function requireMasterKey(masterKey: Buffer): void {
  if (masterKey.length !== KEY_BYTES) throw new WebhookSecretError(`the webhook master key must be ${KEY_BYTES} bytes (got ${masterKey.length})`);
}
