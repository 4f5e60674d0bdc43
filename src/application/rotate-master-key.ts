// A master key rotation (issue 48 item 3, `svc-stt master-key rotate`), with the service running. The
// operator first gives every process the new key as the active one (SVC_WEBHOOK_MASTER_KEY) and the old
// one as previous (SVC_PREVIOUS_MASTER_KEYS): from then on new data keys and secrets are sealed under
// the new key and both open everything. This moves what is left: every tenant's data key re-wrapped
// under the active key, in batches of one transaction each (TenantKeys.rewrapUnderActiveKey), then the
// webhook signing secrets and the console's TOTP secrets, which the master key seals itself, sealed
// again. Content sealed under data keys is untouched: a data key's bytes do not change, only its wrapping.
//
// Idempotent and resumable: a row is changed only while it is still under an old key, so running it
// again after an interruption, or in two processes at once, does each row once. When it ends, the old
// keys that wrap or seal nothing any more are named: they may be removed from every process (one that
// still lacks the new key is refused at start from then on, naming it).
import type { ConsoleSecondFactorStore } from '../store/console-second-factor-store.js';
import type { TenantKeys } from '../store/tenant-keys.js';
import type { WebhookSecretStore } from '../store/webhook-secret-store.js';

export const DEFAULT_REWRAP_BATCH = 500;

export interface MasterKeyRotationStores {
  tenantKeys: Pick<TenantKeys, 'rewrapUnderActiveKey' | 'masterKeyIdsInUse'>;
  webhookSecrets: Pick<WebhookSecretStore, 'resealUnderActiveKey'>;
  consoleSecondFactors: Pick<ConsoleSecondFactorStore, 'resealUnderActiveKey'>;
  /** Refuses (MissingMasterKeyError, naming it) when a key wraps data keys that this process was not given. */
  requireMasterKeys(): Promise<void>;
}

export interface MasterKeyRotation {
  dataKeysRewrapped: number;
  webhookSecretsResealed: number;
  totpSecretsResealed: number;
  /** Master key ids still wrapping a data key (the active one alone once the rotation is whole). */
  inUse: string[];
  /** Of the previous keys given, those no data key or secret needs any more. */
  retired: string[];
}

export async function rotateMasterKey(
  stores: MasterKeyRotationStores,
  keyIds: { active: string; previous: readonly string[] },
  options: { batch?: number; onProgress?: (dataKeysRewrapped: number) => void } = {},
): Promise<MasterKeyRotation> {
  await stores.requireMasterKeys();
  const batch = options.batch ?? DEFAULT_REWRAP_BATCH;
  let dataKeysRewrapped = 0;
  for (;;) {
    const { found, rewrapped } = await stores.tenantKeys.rewrapUnderActiveKey(batch);
    if (found === 0) break;
    dataKeysRewrapped += rewrapped;
    options.onProgress?.(dataKeysRewrapped);
  }
  const webhookSecretsResealed = await stores.webhookSecrets.resealUnderActiveKey();
  const totpSecretsResealed = await stores.consoleSecondFactors.resealUnderActiveKey();
  const inUse = await stores.tenantKeys.masterKeyIdsInUse();
  const retired = keyIds.previous.filter((id) => id !== keyIds.active && !inUse.includes(id));
  return { dataKeysRewrapped, webhookSecretsResealed, totpSecretsResealed, inUse, retired };
}
