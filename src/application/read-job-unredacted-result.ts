// GET /v1/jobs/{id}/unredacted_result: the unredacted transcript a succeeded job kept beside its
// redacted result (`redact_output=redacted_and_unredacted`), while the result is kept. Read like the
// result: only the key that created the job, same expiry, an audit line per read.
import type { Readable } from 'node:stream';

import type { JobRecord } from '../store/job-store.js';
import { ResultNotAvailable } from './application-errors.js';
import { findOwnJob } from './find-own-job.js';
import { resultExpired } from './job-deadlines.js';
import type { JobResultRead, ReadJobResultDeps } from './read-job-result.js';
import { logResultRead } from './result-read-audit.js';

/** The job (the result's content type, which the copy shares) and the copy, opened for reading. */
export async function readJobUnredactedResult(read: JobResultRead, deps: ReadJobResultDeps): Promise<{ job: JobRecord; content: Readable }> {
  const job = await findOwnJob(deps, read.key, read.jobId);
  if (job.status !== 'succeeded') throw new ResultNotAvailable('not_final');
  if (resultExpired(job, deps.clock().getTime())) throw new ResultNotAvailable('expired');
  if (job.unredactedPath === null) throw new ResultNotAvailable('no_unredacted_result');
  logResultRead(read.log, read.key, job.id, 'unredacted_result');
  return { job, content: deps.blobs.forTenant(job.tenant).openResult(job.unredactedPath) };
}
