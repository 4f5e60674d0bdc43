// Master keys held by AWS KMS (issue 48 item 2): a data key is wrapped by KMS Encrypt under the active
// KMS key and unwrapped by KMS Decrypt, so the key that protects every tenant's data key never leaves
// KMS. The context (tenant and data key version) is the encryption context, which KMS binds to the
// ciphertext: a wrapped key moved onto another tenant's or version's row is refused by KMS itself.
// A row names its key as `kms:` and the KeyId as configured, and Decrypt is given that KeyId, so KMS
// checks the ciphertext is that key's. Tested against the loopback stand-in in test/helpers, not AWS.
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';

import type { KeyProvider, WrappedKey } from '../master-keys.js';
import { SealingError } from '../sealing-error.js';
import { keyServiceError } from './kms-errors.js';
import type { KmsSettings } from './kms-settings.js';

const PREFIX = 'kms:';
/** The encryption context's one entry; its value is the data key's context. */
const CONTEXT_KEY = 'svc-stt-data-key';
/** A KMS call is milliseconds; a key service that does not connect or answer in this long is down. */
const CONNECTION_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** The SDK logs through `console` by default; every failure here becomes a typed error instead. */
const QUIET_LOGGER = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** The id a row stores for data keys wrapped under `keyId`. */
export function kmsMasterKeyId(keyId: string): string {
  return `${PREFIX}${keyId}`;
}

export class AwsKmsKeyProvider implements KeyProvider {
  readonly activeKeyId: string;
  private readonly keyIds: ReadonlySet<string>;
  private readonly client: KMSClient;

  /** `keyIds[0]` is the active one; the others still unwrap what they wrapped. */
  constructor(keyIds: readonly string[], settings: Pick<KmsSettings, 'region' | 'endpoint'>) {
    if (keyIds.length === 0) throw new SealingError('a KMS key id is required');
    this.activeKeyId = kmsMasterKeyId(keyIds[0]!);
    this.keyIds = new Set(keyIds.map(kmsMasterKeyId));
    this.client = new KMSClient({
      region: settings.region,
      ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
      requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      logger: QUIET_LOGGER,
    });
  }

  has(keyId: string): boolean {
    return this.keyIds.has(keyId);
  }

  async wrap(dataKey: Buffer, context: string): Promise<WrappedKey> {
    const KeyId = this.activeKeyId.slice(PREFIX.length);
    try {
      const { CiphertextBlob } = await this.client.send(new EncryptCommand({ KeyId, Plaintext: dataKey, EncryptionContext: { [CONTEXT_KEY]: context } }));
      if (!CiphertextBlob) throw new SealingError(`KMS Encrypt of data key ${context} under ${KeyId} answered no ciphertext`);
      return { masterKeyId: this.activeKeyId, wrapped: Buffer.from(CiphertextBlob) };
    } catch (error) {
      throw error instanceof SealingError ? error : keyServiceError(error, 'Encrypt', KeyId, context);
    }
  }

  async unwrap(key: WrappedKey, context: string): Promise<Buffer> {
    if (!this.keyIds.has(key.masterKeyId)) {
      throw new SealingError(`data key ${context} is wrapped under master key ${key.masterKeyId}, which this process was not given`);
    }
    const KeyId = key.masterKeyId.slice(PREFIX.length);
    try {
      const { Plaintext } = await this.client.send(new DecryptCommand({ KeyId, CiphertextBlob: key.wrapped, EncryptionContext: { [CONTEXT_KEY]: context } }));
      if (Plaintext?.length !== 32) throw new SealingError(`KMS Decrypt of data key ${context} under ${KeyId} answered no 32-byte key`);
      const dataKey = Buffer.from(Plaintext);
      Plaintext.fill(0);
      return dataKey;
    } catch (error) {
      throw error instanceof SealingError ? error : keyServiceError(error, 'Decrypt', KeyId, context);
    }
  }

  close(): void {
    this.client.destroy();
  }
}
