// The Idempotency-Key rule shared by the use cases that create work: a retry with the same content
// gets the stored answer, a retry with other content or one racing the first is refused, and a new
// key is held by this request until its answer is stored (or released when it fails).
//
// Scope (the contract: "Idempotency keys are scoped to the API credential (tenant)"): a key's records
// are the tenant's, so another key of the tenant reusing an Idempotency-Key never starts other work
// under it. But a stored answer names a job, and jobs are owner-scoped (find-own-job.ts): the answer
// is given again only to the key it was given to. Another key's request with the same content is
// refused like other content (409 idempotency_conflict), never told the job: the fingerprint
// claimed is bound to the key (keyBoundFingerprint).
import type { IdempotencyStore, StoredResponse } from '../store/idempotency-store.js';
import { IdempotencyConflict, IdempotencyInProgress } from './application-errors.js';
import { keyBoundFingerprint } from './request-fingerprint.js';

/** The stored answer to give again, or null when this request now holds the key. */
export async function claimIdempotencyKey(
  store: Pick<IdempotencyStore, 'begin'>,
  claim: { tenant: string; keyId: string; key: string; fingerprint: string; now?: Date },
): Promise<StoredResponse | null> {
  const begun = await store.begin(claim.tenant, claim.key, keyBoundFingerprint(claim.keyId, claim.fingerprint), claim.now);
  if (begun.state === 'completed') return begun.response;
  if (begun.state === 'conflict') throw new IdempotencyConflict();
  if (begun.state === 'in_progress') throw new IdempotencyInProgress();
  return null;
}
