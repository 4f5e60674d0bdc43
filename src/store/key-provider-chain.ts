// The master keys of a process configured with more than one provider: the local key (the webhook
// master key and SVC_PREVIOUS_MASTER_KEYS) and AWS KMS keys (SVC_KMS_KEY_ID, SVC_KMS_PREVIOUS_KEY_IDS).
// One of them wraps new data keys; each unwraps what it wrapped, found by the id the row names, so a
// rotation from a local key to KMS, from one KMS key to another, or back, is the usual rotation.
import type { KeyProvider, WrappedKey } from './master-keys.js';
import { SealingError } from './sealing-error.js';

export class KeyProviderChain implements KeyProvider {
  readonly activeKeyId: string;

  /** `active` wraps; it and `others` unwrap. */
  constructor(
    private readonly active: KeyProvider,
    private readonly others: readonly KeyProvider[],
  ) {
    this.activeKeyId = active.activeKeyId;
  }

  has(keyId: string): boolean {
    return this.providerOf(keyId) !== undefined;
  }

  async wrap(dataKey: Buffer, context: string): Promise<WrappedKey> {
    return this.active.wrap(dataKey, context);
  }

  async unwrap(key: WrappedKey, context: string): Promise<Buffer> {
    const provider = this.providerOf(key.masterKeyId);
    if (!provider) throw new SealingError(`data key ${context} is wrapped under master key ${key.masterKeyId}, which this process was not given`);
    return provider.unwrap(key, context);
  }

  close(): void {
    for (const provider of [this.active, ...this.others]) provider.close?.();
  }

  private providerOf(keyId: string): KeyProvider | undefined {
    return [this.active, ...this.others].find((provider) => provider.has(keyId));
  }
}
