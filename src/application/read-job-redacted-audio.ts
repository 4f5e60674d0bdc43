// GET /v1/jobs/{id}/redacted_audio: a succeeded job's redacted copy of its audio (`redact_audio`),
// while its result is kept. Read like the result: same key, same expiry, an audit line per read.
import type { Readable } from 'node:stream';

import { ResultNotAvailable } from './application-errors.js';
import { findOwnJob } from './find-own-job.js';
import { resultExpired } from './job-deadlines.js';
import type { JobResultRead, ReadJobResultDeps } from './read-job-result.js';
import { logResultRead } from './result-read-audit.js';

/** The copy, opened for reading. */
export async function readJobRedactedAudio(read: JobResultRead, deps: ReadJobResultDeps): Promise<Readable> {
  const job = await findOwnJob(deps, read.key, read.jobId);
  if (job.status !== 'succeeded') throw new ResultNotAvailable('not_final');
  if (resultExpired(job, deps.clock().getTime())) throw new ResultNotAvailable('expired');
  if (job.redactedAudioPath === null) throw new ResultNotAvailable('no_redacted_audio');
  logResultRead(read.log, read.key, job.id, 'redacted_audio');
  return deps.blobs.forTenant(job.tenant).openResult(job.redactedAudioPath);
}
