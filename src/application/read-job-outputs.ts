// Reading what a job stored, by the key that created it, with a job audit line per read (transcript
// content is about to be served): GET /v1/jobs/{id}/result (the final result), /unredacted_result
// (the unredacted copy of `redact_output=redacted_and_unredacted`), /redacted_audio (the redacted
// copy of `redact_audio`), all while the result is kept, and /partial (a running job's latest
// provisional result). Each is opened through the job's tenant's view: it is sealed at rest.
import type { Readable } from 'node:stream';

import type { ApiKeyRecord } from '../domain/api-keys.js';
import { JOB_AUDIT_EVENTS, type JobAuditLog, logJobAudit, requestKeySubject } from '../jobs/job-audit.js';
import type { JobRecord } from '../store/job-store.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import { ResultNotAvailable } from './application-errors.js';
import { findOwnJob, type OwnJobDeps } from './find-own-job.js';
import { resultExpired } from './job-deadlines.js';

export interface JobResultRead {
  key: ApiKeyRecord;
  jobId: string;
  /** Where the job audit lines of the request go. */
  log: JobAuditLog;
}

export interface ReadJobResultDeps extends OwnJobDeps {
  blobs: Pick<TenantBlobs, 'forTenant'>;
}

type ReadVia = 'result' | 'poll' | 'partial' | 'redacted_audio' | 'unredacted_result';

/** The audit line of a read: which key read which job's stored output, by which route. */
export function logResultRead(log: JobAuditLog, key: ApiKeyRecord, jobId: string, via: ReadVia): void {
  logJobAudit(log, JOB_AUDIT_EVENTS.resultRead, requestKeySubject(jobId, key), { via });
}

/** The job (its result's content type, which the copies share) and its final result, opened for reading. */
export function readJobResult(read: JobResultRead, deps: ReadJobResultDeps): Promise<{ job: JobRecord; content: Readable }> {
  return readFinal(read, deps, 'result', (job) => job.resultPath);
}

/** The job and the unredacted copy kept beside its redacted result, opened for reading. */
export function readJobUnredactedResult(read: JobResultRead, deps: ReadJobResultDeps): Promise<{ job: JobRecord; content: Readable }> {
  return readFinal(read, deps, 'unredacted_result', (job) => job.unredactedPath);
}

/** The redacted copy of the job's audio, opened for reading. */
export async function readJobRedactedAudio(read: JobResultRead, deps: ReadJobResultDeps): Promise<Readable> {
  return (await readFinal(read, deps, 'redacted_audio', (job) => job.redactedAudioPath)).content;
}

/** A running job's latest provisional result, read whole (it is replaced by rename, never written in place). */
export async function readJobPartial(read: JobResultRead, deps: ReadJobResultDeps): Promise<Buffer> {
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

/** What a succeeded job kept at `pathOf`, while its result is kept. */
async function readFinal(
  read: JobResultRead,
  deps: ReadJobResultDeps,
  via: 'result' | 'redacted_audio' | 'unredacted_result',
  pathOf: (job: JobRecord) => string | null,
): Promise<{ job: JobRecord; content: Readable }> {
  const job = await findOwnJob(deps, read.key, read.jobId);
  if (job.status !== 'succeeded') throw new ResultNotAvailable('not_final');
  if (resultExpired(job, deps.clock().getTime())) throw new ResultNotAvailable('expired');
  const path = pathOf(job);
  if (path === null) throw new ResultNotAvailable(via === 'result' ? 'expired' : via === 'redacted_audio' ? 'no_redacted_audio' : 'no_unredacted_result');
  logResultRead(read.log, read.key, job.id, via);
  return { job, content: deps.blobs.forTenant(job.tenant).openResult(path) };
}
