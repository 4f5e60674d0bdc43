// Sealing of small content (a job's request, its carry-over, a stored answer, a voice profile) under a
// tenant's data key: AES-256-GCM, a fresh random nonce per seal, and the object's identity (`aad`,
// e.g. `jobs.request:<job id>`) bound as additional data, so a sealed value copied onto another
// object fails to open. The bytes describe themselves (a magic, the data key version), so a column
// can hold sealed values beside plain ones written before sealing existed, and a reader knows which
// data key version opens each.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

import { SealingError } from './sealing-error.js';

const MAGIC = Buffer.from('SSB1', 'latin1');
const HEADER_BYTES = MAGIC.length + 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** What a sealed value in a TEXT column starts with; plain JSON never does. */
export const SEALED_TEXT_PREFIX = 'sealed:v1:';

export function sealBuffer(dataKey: Buffer, keyVersion: number, aad: string, plain: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header);
  header.writeUInt32BE(keyVersion, MAGIC.length);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.concat([header, Buffer.from(aad, 'utf8')]));
  return Buffer.concat([header, iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

/** The data key version a sealed buffer names; null when `sealed` is not a sealed buffer. */
export function sealedKeyVersion(sealed: Buffer): number | null {
  if (sealed.length < HEADER_BYTES + IV_BYTES + TAG_BYTES || !sealed.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  return sealed.readUInt32BE(MAGIC.length);
}

/** Throws SealingError when the key, the identity (`aad`) or the bytes do not match. */
export function openBuffer(dataKey: Buffer, aad: string, sealed: Buffer): Buffer {
  if (sealedKeyVersion(sealed) === null) throw new SealingError(`${aad}: not a sealed value`);
  const header = sealed.subarray(0, HEADER_BYTES);
  const iv = sealed.subarray(HEADER_BYTES, HEADER_BYTES + IV_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', dataKey, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.concat([header, Buffer.from(aad, 'utf8')]));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES + IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch (error) {
    throw new SealingError(`${aad}: the sealed value does not open (changed, moved from another object, or another key)`, { cause: error });
  }
}
