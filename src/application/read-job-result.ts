// GET /v1/jobs/{id}/result: a succeeded job's final result, while it is kept.
import type { Readable } from 'node:stream';

import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { JobAuditLog } from '../jobs/job-audit.js';
import type { JobRecord } from '../store/job-store.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import { ResultNotAvailable } from './application-errors.js';
import { findOwnJob, type OwnJobDeps } from './find-own-job.js';
import { resultExpired } from './job-deadlines.js';
import { logResultRead } from './result-read-audit.js';

export interface JobResultRead {
  key: ApiKeyRecord;
  jobId: string;
  /** Where the job audit lines of the request go. */
  log: JobAuditLog;
}

export interface ReadJobResultDeps extends OwnJobDeps {
  blobs: Pick<TenantBlobs, 'forTenant'>;
}

/** The job (its result's content type) and its result, opened for reading. */
export async function readJobResult(read: JobResultRead, deps: ReadJobResultDeps): Promise<{ job: JobRecord; content: Readable }> {
  const job = await findOwnJob(deps, read.key, read.jobId);
  if (job.status !== 'succeeded') throw new ResultNotAvailable('not_final');
  if (resultExpired(job, deps.clock().getTime())) throw new ResultNotAvailable('expired');
  logResultRead(read.log, read.key, job.id, 'result');
  return { job, content: deps.blobs.forTenant(job.tenant).openResult(job.resultPath!) };
}
