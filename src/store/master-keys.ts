// The operator's master keys and the seam a key management service fills (issue 48). A master key
// never seals content: it wraps each tenant's data key (tenant-keys.ts), and only the wrapped form
// is stored. Every wrapped key names the master key id it was wrapped under, so a rotation can find
// what still needs re-wrapping and a start without that key can name the one it needs.
//
// LocalKeyProvider holds the key in process memory: today's webhook master key (SVC_WEBHOOK_MASTER_KEY
// or <data dir>/webhook-master.key), whose id is derived from the key itself, so an existing installation's
// key keeps one id with no new setting. AwsKmsKeyProvider (kms/) implements the same interface with
// AWS KMS, and KeyProviderChain puts the two together for a process configured with both.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

import { SealingError } from './sealing-error.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
// Data keys are wrapped under a key derived for that purpose alone, never the master key itself
// (which also seals webhook secrets directly).
const WRAP_PURPOSE = 'svc-stt data key wrapping v1';

export interface WrappedKey {
  masterKeyId: string;
  wrapped: Buffer;
}

export interface KeyProvider {
  /** The master key new data keys are wrapped under. */
  readonly activeKeyId: string;
  /** Whether this provider can unwrap what `keyId` wrapped. */
  has(keyId: string): boolean;
  /** `context` (tenant and data key version) is bound to the wrapped form: it unwraps only with the same. */
  wrap(dataKey: Buffer, context: string): Promise<WrappedKey>;
  /** Throws SealingError when the key is unknown, the context differs or the bytes were changed. */
  unwrap(key: WrappedKey, context: string): Promise<Buffer>;
  /** Releases what the provider holds open (a KMS client's connections). */
  close?(): void;
}

/** `mk-` and 16 hex digits of an HMAC-SHA-256 under the key: names it in rows and errors without revealing it. */
export function masterKeyIdOf(key: Buffer): string {
  return `mk-${createHmac('sha256', key).update('svc-stt master key id').digest('hex').slice(0, 16)}`;
}

export class LocalKeyProvider implements KeyProvider {
  readonly activeKeyId: string;
  private readonly wrapping = new Map<string, Buffer>();

  /** `keys[0]` is the active one; the others still unwrap what they wrapped. */
  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new SealingError('a master key is required');
    for (const key of keys) {
      if (key.length !== KEY_BYTES) throw new SealingError(`a master key must be ${KEY_BYTES} bytes (got ${key.length})`);
      this.wrapping.set(masterKeyIdOf(key), Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), WRAP_PURPOSE, KEY_BYTES)));
    }
    this.activeKeyId = masterKeyIdOf(keys[0]!);
  }

  has(keyId: string): boolean {
    return this.wrapping.has(keyId);
  }

  async wrap(dataKey: Buffer, context: string): Promise<WrappedKey> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.wrapping.get(this.activeKeyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(`${this.activeKeyId}|${context}`, 'utf8'));
    const body = Buffer.concat([cipher.update(dataKey), cipher.final()]);
    return { masterKeyId: this.activeKeyId, wrapped: Buffer.concat([iv, body, cipher.getAuthTag()]) };
  }

  async unwrap(key: WrappedKey, context: string): Promise<Buffer> {
    const wrapping = this.wrapping.get(key.masterKeyId);
    if (!wrapping) throw new SealingError(`data key ${context} is wrapped under master key ${key.masterKeyId}, which this process was not given`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', wrapping, key.wrapped.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(`${key.masterKeyId}|${context}`, 'utf8'));
      decipher.setAuthTag(key.wrapped.subarray(key.wrapped.length - TAG_BYTES));
      return Buffer.concat([decipher.update(key.wrapped.subarray(IV_BYTES, key.wrapped.length - TAG_BYTES)), decipher.final()]);
    } catch (error) {
      throw new SealingError(`data key ${context} does not open under master key ${key.masterKeyId}: the stored row is damaged or moved`, { cause: error });
    }
  }
}
