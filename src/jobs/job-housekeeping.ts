// Time-driven transitions of the job lifecycle, run by the sweeper and on the poll path:
// - an `awaiting_upload` job not completed by its deadline fails `job_expired` (its audio, if one was
//   uploaded, is deleted with it);
// - a result past its retention is deleted; the record stays as a tombstone answering
//   `result: {expired: true}`;
// - a tombstone past its end is deleted (polls answer 404 from then on).
import type { BlobStore } from '../store/blob-store.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import { JOB_AUDIT_EVENTS, type JobAuditLog, jobOwnerSubject, logJobAudit } from './job-audit.js';
import type { JobEvents } from './job-events.js';
import { JOB_FAILURE_MESSAGES } from './job-failure.js';
import { effectiveRetentionHours, retentionFrom } from './job-retention.js';
import { jobEventInput, jobFailedEvent } from './job-webhook-events.js';

export interface JobHousekeepingDeps {
  jobs: JobStore;
  blobs: Pick<BlobStore, 'delete' | 'directUploads'>;
  keys: KeyStore;
  events: JobEvents;
  /** Told when a failure wrote a webhook event (the delivery worker sends it now). */
  webhooks?: { kick(): void };
  /** For the poll URL in webhook events; read when used (known once the server listens). */
  config: { readonly publicBaseUrl: string };
  defaultRetentionHours: number;
  /** Where an expired upload's audit line goes (job-audit.ts). */
  log?: JobAuditLog;
}

export class JobHousekeeping {
  constructor(private readonly deps: JobHousekeepingDeps) {}

  /** Fails one overdue upload job now (the poll path calls this so a poll never shows a stale state). */
  async expireUpload(job: JobRecord, nowMs: number): Promise<boolean> {
    if (job.status !== 'awaiting_upload' || job.completeByMs === null || job.completeByMs > nowMs) return false;
    const hours = job.retentionHours ?? (await this.deps.keys.get(job.keyId))?.retentionHours ?? this.deps.defaultRetentionHours;
    // A job that asked for a webhook hears that its upload never came.
    const eventInput = jobEventInput(job, this.deps.config.publicBaseUrl, nowMs);
    const event = eventInput ? jobFailedEvent(eventInput, 'job_expired') : null;
    const released = await this.deps.jobs.fail(
      job.id,
      { status: 'awaiting_upload' },
      { code: 'job_expired', message: JOB_FAILURE_MESSAGES.uploadExpired },
      retentionFrom(nowMs, effectiveRetentionHours(job, hours)),
      nowMs,
      event,
    );
    if (!released) return false;
    logJobAudit(this.deps.log, JOB_AUDIT_EVENTS.failed, jobOwnerSubject(job), { errorCode: 'job_expired' });
    if (event) this.deps.webhooks?.kick();
    for (const path of released.paths) await this.deps.blobs.delete(path).catch(() => {});
    // A file posted straight to the bucket but never completed goes with the slot.
    await this.deps.blobs.directUploads?.discard(job.id).catch(() => {});
    this.deps.events.notify(job.id);
    return true;
  }

  /** One pass over everything due. Returns counts, for logs and tests. */
  async run(nowMs: number): Promise<{ uploadsExpired: number; resultsExpired: number; tombstonesEnded: number }> {
    let uploadsExpired = 0;
    for (const id of await this.deps.jobs.overdueUploads(nowMs)) {
      const job = await this.deps.jobs.getById(id);
      if (job && (await this.expireUpload(job, nowMs))) uploadsExpired += 1;
    }
    const expired = await this.deps.jobs.expireResults(nowMs);
    for (const { id, paths } of expired) {
      for (const path of paths) await this.deps.blobs.delete(path).catch(() => {});
      this.deps.events.notify(id);
    }
    const tombstonesEnded = await this.deps.jobs.deleteEndedTombstones(nowMs);
    return { uploadsExpired, resultsExpired: expired.length, tombstonesEnded };
  }
}
