// POST /v1/jobs/{id}/complete: the client says its file is uploaded, and the job is handed to the
// workers. With S3 the file went straight to the bucket, so it is collected (checked against what
// the job declared) first. Completing is refused once usage is blocked; a job already accepted
// answers as before (a retried complete, like result retrieval, keeps working).
import type { UsageBilling } from '../billing/usage-billing.js';
import { collectDirectUpload } from '../jobs/direct-upload.js';
import { JOB_AUDIT_EVENTS, jobOwnerSubject, logJobAudit, requestKeySubject, type JobAuditLog } from '../jobs/job-audit.js';
import type { JobEvents } from '../jobs/job-events.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { BlobStore } from '../store/blob-store.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import type { ApiKeyRecord } from '../store/key-store.js';
import { JobNotFound, UploadNotComplete } from './application-errors.js';
import { findOwnJob, type OwnJobDeps } from './find-own-job.js';

export interface JobUploadCompletion {
  key: ApiKeyRecord;
  jobId: string;
  /** Where the job audit lines of the request go. */
  log: JobAuditLog;
}

export interface CompleteJobUploadDeps extends OwnJobDeps {
  jobs: JobStore;
  blobs: BlobStore;
  queue: JobQueue;
  events: Pick<JobEvents, 'notify'>;
  billing: Pick<UsageBilling, 'requireAllowance'>;
}

/** The job as completing left it, and the time it was judged at. */
export async function completeJobUpload(completion: JobUploadCompletion, deps: CompleteJobUploadDeps): Promise<{ job: JobRecord; nowMs: number }> {
  const { key, jobId, log } = completion;
  const job = await findOwnJob(deps, key.tenant, jobId);
  const now = deps.clock().getTime();
  const { directUploads } = deps.blobs;
  const collected = directUploads ? await collectDirectUpload({ jobs: deps.jobs, blobs: deps.blobs, directUploads }, job, now) : null;
  if (collected === 'mismatch') throw new UploadNotComplete('mismatch');
  // The bucket took the file without the service seeing it: this is when the service receives it.
  if (collected === 'stored') logJobAudit(log, JOB_AUDIT_EVENTS.uploadReceived, jobOwnerSubject(job), { bytes: job.uploadBytes ?? undefined });
  if (job.status === 'awaiting_upload') await deps.billing.requireAllowance(key, 'job');
  const outcome = await deps.jobs.complete(jobId, key.tenant, now);
  if (outcome.outcome === 'not_found') throw new JobNotFound();
  if (outcome.outcome === 'not_uploaded') throw new UploadNotComplete(outcome.job.status === 'failed' ? 'slot_closed' : 'not_uploaded');
  if (outcome.outcome === 'accepted') {
    logJobAudit(log, JOB_AUDIT_EVENTS.accepted, requestKeySubject(outcome.job.id, key));
    deps.queue.enqueue(outcome.job.id);
    deps.events.notify(outcome.job.id);
  }
  return { job: outcome.job, nowMs: now };
}
