// GET /v1/jobs/{id}/partial: a running job's latest provisional result. It is read whole (it is
// replaced by rename, never written in place), so the revision read is consistent.
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import { ResultNotAvailable } from './application-errors.js';
import { findOwnJob, type OwnJobDeps } from './find-own-job.js';
import type { JobResultRead } from './read-job-result.js';
import { logResultRead } from './result-read-audit.js';

export interface ReadJobPartialDeps extends OwnJobDeps {
  blobs: Pick<TenantBlobs, 'forTenant'>;
}

export async function readJobPartial(read: JobResultRead, deps: ReadJobPartialDeps): Promise<Buffer> {
  const job = await findOwnJob(deps, read.key, read.jobId);
  if (job.status !== 'running' || !job.partialPath) throw new ResultNotAvailable('no_provisional');
  // A revision replaced or removed between the row and the read is no provisional result either.
  const content = await deps.blobs
    .forTenant(job.tenant)
    .readResult(job.partialPath)
    .catch(() => null);
  if (!content) throw new ResultNotAvailable('no_provisional');
  logResultRead(read.log, read.key, job.id, 'partial');
  return content;
}
