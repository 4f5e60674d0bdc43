// The webhook events of a job's end: `transcription.job.succeeded` (the contract's) and
// `transcription.job.failed`. A body carries the job id, its status, where to poll it and, on failure,
// the failure code — never transcript text, file names, result URLs, messages or decoder errors — and
// is fixed when the job ends: every attempt sends (and signs) these exact bytes.
import type { JobFailureCode } from '../domain/job-statuses.js';
import type { OutboxEvent } from '../store/job-store.js';
import { randomBase62 } from '../store/random-id.js';
export const JOB_SUCCEEDED_EVENT_TYPE = 'transcription.job.succeeded';
export const JOB_FAILED_EVENT_TYPE = 'transcription.job.failed';
export const JOB_EVENT_TYPES = [JOB_SUCCEEDED_EVENT_TYPE, JOB_FAILED_EVENT_TYPE] as const;
/** Every event id starts with it (the `webhook-id` header). */
export const EVENT_ID_PREFIX = 'evt_';

export interface JobEventInput {
  jobId: string;
  keyId: string;
  /** The secret version pinned to the job when it was accepted. */
  secretVersion: number;
  url: string;
  pollUrl: string;
  nowMs: number;
}

export function jobSucceededEvent(input: JobEventInput): OutboxEvent {
  return jobEvent(input, JOB_SUCCEEDED_EVENT_TYPE, { job_id: input.jobId, status: 'succeeded', poll_url: input.pollUrl });
}

export function jobFailedEvent(input: JobEventInput, code: JobFailureCode): OutboxEvent {
  return jobEvent(input, JOB_FAILED_EVENT_TYPE, { job_id: input.jobId, status: 'failed', error: { code }, poll_url: input.pollUrl });
}

/** The input of a job's event when it asked for a webhook (with its pinned secret); else null. */
export function jobEventInput(
  job: { id: string; keyId: string; webhookUrl: string | null; webhookSecretVersion: number | null },
  publicBaseUrl: string,
  nowMs: number,
): JobEventInput | null {
  if (!job.webhookUrl || job.webhookSecretVersion === null) return null;
  return {
    jobId: job.id,
    keyId: job.keyId,
    secretVersion: job.webhookSecretVersion,
    url: job.webhookUrl,
    pollUrl: `${publicBaseUrl}/v1/jobs/${job.id}`,
    nowMs,
  };
}

function jobEvent(input: JobEventInput, type: string, data: Record<string, unknown>): OutboxEvent {
  const eventId = `${EVENT_ID_PREFIX}${randomBase62(22)}`;
  const body = JSON.stringify({ id: eventId, type, created: new Date(input.nowMs).toISOString(), data });
  return { eventId, keyId: input.keyId, secretVersion: input.secretVersion, url: input.url, body };
}
