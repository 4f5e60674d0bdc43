// A job's deadlines judged on the record's own times, so an answer given a second after one passed
// already says so, whether or not the sweeper has acted on it yet.
import type { JobRecord } from '../store/job-store.js';

/** Whether the record is gone for clients (its tombstone has ended). */
export function isPastTombstone(job: JobRecord, nowMs: number): boolean {
  return job.tombstoneUntilMs !== null && job.tombstoneUntilMs <= nowMs;
}

/** Whether a succeeded job's result can no longer be read (deleted, or past its expiry). */
export function resultExpired(job: JobRecord, nowMs: number): boolean {
  return job.status === 'succeeded' && (job.resultPath === null || (job.resultExpiresAtMs !== null && job.resultExpiresAtMs <= nowMs));
}
