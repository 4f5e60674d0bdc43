// How long a finished job's result and record are kept (docs/DESIGN.md decision 8): the key's retention
// (1 to 72 h, default 24 h), at least 9 h when a webhook was requested (a receiver that was down for
// the whole retry schedule, which ends 8 h 36 min after the event, can still fetch the result); then
// a tombstone for 72 h in which polling answers `result: {expired: true}`; then nothing (404).
import type { JobRecord, Retention } from '../store/job-store.js';

export const WEBHOOK_MINIMUM_RETENTION_HOURS = 9;
export const TOMBSTONE_HOURS = 72;
const HOUR_MS = 3_600_000;

export function effectiveRetentionHours(job: Pick<JobRecord, 'webhookUrl'>, keyRetentionHours: number): number {
  return job.webhookUrl ? Math.max(WEBHOOK_MINIMUM_RETENTION_HOURS, keyRetentionHours) : keyRetentionHours;
}

export function retentionFrom(finishedAtMs: number, retentionHours: number): Retention {
  const resultExpiresAtMs = finishedAtMs + retentionHours * HOUR_MS;
  return { resultExpiresAtMs, tombstoneUntilMs: resultExpiresAtMs + TOMBSTONE_HOURS * HOUR_MS };
}
