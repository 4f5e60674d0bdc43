// Work that outlives the moment its request was authenticated (an upload of minutes, a webhook's DNS
// lookup, a long poll) reads the key again before it commits or answers anything: a key revoked
// meanwhile gets no job and no more waiting. The store is read each time, so a revocation made by
// the CLI in another process counts at once.
import type { KeyStore } from '../store/key-store.js';
import { KeyRevoked } from './application-errors.js';

/**
 * How often work that outlives its authentication (a long poll waiting, a presigned upload streaming)
 * reads its key again: the longest a revoked key keeps such work going.
 */
export const KEY_RECHECK_INTERVAL_MS = 1000;

/** Whether the key is still active now (not revoked, not gone). */
export async function isKeyActive(keys: Pick<KeyStore, 'get'>, keyId: string): Promise<boolean> {
  const record = await keys.get(keyId);
  return record !== null && record.revokedAt === null;
}

export async function requireActiveKey(keys: Pick<KeyStore, 'get'>, keyId: string): Promise<void> {
  if (!(await isKeyActive(keys, keyId))) throw new KeyRevoked();
}
