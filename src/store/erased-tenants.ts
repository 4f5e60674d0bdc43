// The record of erased tenants (issue 48, item 4): once `tenants erase` has run, no process makes a data
// key for that tenant again, so a late writer (a worker that held one of its jobs, a process that
// missed the erasure) cannot seal content under a fresh key and bring the tenant back.
//
// Only a digest of the id is kept, never the id: the table does not list who left (the erasure's audit
// line, in the operator's logs, is where the id stays). A digest cannot be reversed, but it confirms a
// guessed id, and tenant ids are the operator's own names: read it as "not listed", not "secret".
// An erased id is not reused: content for it would be refused.
import { SealingError } from './sealing-error.js';
import { storedTokenDigest } from './token-digest.js';

/** SHA-256 (hex) of the tenant id, domain-separated (the stores' one digest, token-digest.ts). */
export function erasedTenantDigest(tenant: string): string {
  return storedTokenDigest(`svc-stt erased tenant\0${tenant}`).toString('hex');
}

/** Content for a tenant that was erased: nothing is sealed for it again (the job ends, nothing is written). */
export class TenantErasedError extends SealingError {
  constructor(readonly tenant: string) {
    super(`tenant ${tenant} was erased: no data key is made for it again, and nothing is sealed for it`);
    this.name = 'TenantErasedError';
  }
}
