// The Idempotency-Key rule shared by the use cases that create work: a retry with the same content
// gets the stored answer, a retry with other content or one racing the first is refused, and a new
// key is held by this request until its answer is stored (or released when it fails).
import type { IdempotencyStore, StoredResponse } from '../store/idempotency-store.js';
import { IdempotencyConflict, IdempotencyInProgress } from './application-errors.js';

/** The stored answer to give again, or null when this request now holds the key. */
export async function claimIdempotencyKey(
  store: Pick<IdempotencyStore, 'begin'>,
  claim: { tenant: string; key: string; fingerprint: string; now?: Date },
): Promise<StoredResponse | null> {
  const begun = await store.begin(claim.tenant, claim.key, claim.fingerprint, claim.now);
  if (begun.state === 'completed') return begun.response;
  if (begun.state === 'conflict') throw new IdempotencyConflict();
  if (begun.state === 'in_progress') throw new IdempotencyInProgress();
  return null;
}
