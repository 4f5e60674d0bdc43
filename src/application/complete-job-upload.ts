// POST /v1/jobs/{id}/complete: the client says its file is uploaded, and the job is handed to the
// workers. With S3 the file went straight to the bucket, so it is collected (checked against what
// the job declared) first. The file's length is measured and reserved for the job (billing's
// reservation, converted by its success): completing is refused (402, the job keeps waiting with its
// file) when that length does not fit the key's standing with the work admitted meanwhile. A job
// already accepted answers as before (a retried complete, like result retrieval, keeps working).
import type { UsageBilling } from '../billing/usage-billing.js';
import type { ServiceConfig } from '../config/service-config.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { collectDirectUpload } from '../jobs/direct-upload.js';
import { probeJobAudio } from '../jobs/job-audio-probe.js';
import { JOB_AUDIT_EVENTS, type JobAuditLog, jobOwnerSubject, logJobAudit, requestKeySubject } from '../jobs/job-audit.js';
import type { JobEvents } from '../jobs/job-events.js';
import { JobFailure } from '../jobs/job-failure.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { jobUsageKey } from '../jobs/job-usage.js';
import type { CompleteOutcome, JobRecord, JobStore } from '../store/job-store.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
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
  blobs: TenantBlobs;
  queue: JobQueue;
  events: Pick<JobEvents, 'notify'>;
  billing: Pick<UsageBilling, 'requireAllowance' | 'reserve' | 'release'>;
  config: Pick<ServiceConfig, 'decodeTimeoutMs' | 'maxAudioSeconds'>;
}

/** The job as completing left it, and the time it was judged at. */
export async function completeJobUpload(completion: JobUploadCompletion, deps: CompleteJobUploadDeps): Promise<{ job: JobRecord; nowMs: number }> {
  const { key, jobId, log } = completion;
  const job = await findOwnJob(deps, key, jobId);
  const now = deps.clock().getTime();
  // Through the tenant's view: a collected file is sealed under its data key on its way into job audio.
  const { directUploads } = deps.blobs.forTenant(key.tenant);
  const collected = directUploads ? await collectDirectUpload({ jobs: deps.jobs, blobs: deps.blobs, directUploads }, job, now) : null;
  if (collected === 'mismatch') throw new UploadNotComplete('mismatch');
  // The bucket took the file without the service seeing it: this is when the service receives it.
  if (collected === 'stored') logJobAudit(log, JOB_AUDIT_EVENTS.uploadReceived, jobOwnerSubject(job), { bytes: job.uploadBytes ?? undefined });
  const uploaded = collected === 'stored' ? ((await deps.jobs.get(jobId, key.tenant)) ?? job) : job;
  const reservation = uploaded.status === 'awaiting_upload' ? await admitJob(uploaded, key, deps) : null;
  let outcome: CompleteOutcome;
  try {
    outcome = await deps.jobs.complete(jobId, key.tenant, now);
  } catch (error) {
    if (reservation !== null) await deps.billing.release(reservation).catch(() => undefined);
    throw error;
  }
  // Not accepted by this call nor an earlier one: nothing will be metered for the reservation.
  if (reservation !== null && (outcome.outcome === 'not_found' || outcome.outcome === 'not_uploaded')) {
    await deps.billing.release(reservation).catch(() => undefined);
  }
  if (outcome.outcome === 'not_found') throw new JobNotFound();
  if (outcome.outcome === 'not_uploaded') throw new UploadNotComplete(outcome.job.status === 'failed' ? 'slot_closed' : 'not_uploaded');
  if (outcome.outcome === 'accepted') {
    logJobAudit(log, JOB_AUDIT_EVENTS.accepted, requestKeySubject(outcome.job.id, key));
    deps.queue.enqueue(outcome.job.id);
    deps.events.notify(outcome.job.id);
  }
  return { job: outcome.job, nowMs: now };
}

/**
 * Billing's word on the job's file: its measured length reserved under the job's usage key (held by
 * this process until the job is accepted, then by the job), or, for a file the job will fail on
 * (nothing is metered for it) or none uploaded yet, the key's standing alone. The reservation's key, or null.
 */
async function admitJob(job: JobRecord, key: ApiKeyRecord, deps: CompleteJobUploadDeps): Promise<string | null> {
  const measured = job.audioPath === null ? null : await probeJobAudio(deps.blobs.forTenant(key.tenant), job.audioPath, deps.config).catch(unlessJobFailure);
  if (measured === null) {
    await deps.billing.requireAllowance(key, 'job');
    return null;
  }
  const usageKey = jobUsageKey(job.id);
  await deps.billing.reserve(key, 'job', Math.round(measured.durationSeconds * 1000), usageKey, job.id);
  return usageKey;
}

/** A file the job's first claim will fail on the same way: null. */
function unlessJobFailure(error: unknown): null {
  if (error instanceof JobFailure) return null;
  throw error;
}
