// The words of a job's life that the store keeps, the API reports and the webhooks announce.

export const JOB_STATUSES = ['awaiting_upload', 'accepted', 'running', 'succeeded', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** The statuses of a job once its audio is stored (what a job accepted with its upload can be in). */
export const ACCEPTED_JOB_STATUSES = JOB_STATUSES.filter((s) => s !== 'awaiting_upload') as readonly Exclude<JobStatus, 'awaiting_upload'>[];

export const JOB_FAILURE_CODES = ['audio_too_long', 'audio_undecodable', 'internal_error', 'job_expired'] as const;
export type JobFailureCode = (typeof JOB_FAILURE_CODES)[number];

/**
 * Work pending on a succeeded job's result: `processing` while a worker decorates it (or one may
 * claim it to), `unavailable` when the decoration ended without being attached (the undecorated
 * result stands). Null on every other job, and once a decoration is attached.
 */
export const DECORATION_STATUSES = ['processing', 'unavailable'] as const;
export type DecorationStatus = (typeof DECORATION_STATUSES)[number];
