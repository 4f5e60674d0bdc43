// The contract's one webhook event, `transcription.job.succeeded`. Its body carries the job id, its
// status and where to poll it — never transcript text, file names, result URLs or decoder errors —
// and is fixed when the job succeeds: every attempt sends (and signs) these exact bytes.
import { randomBase62 } from '../store/random-id.js';
import type { OutboxEvent } from '../store/job-store.js';

export const JOB_SUCCEEDED_EVENT_TYPE = 'transcription.job.succeeded';

export interface JobSucceededEventInput {
  jobId: string;
  keyId: string;
  /** The secret version pinned to the job when it was accepted. */
  secretVersion: number;
  url: string;
  pollUrl: string;
  nowMs: number;
}

export function jobSucceededEvent(input: JobSucceededEventInput): OutboxEvent {
  const eventId = `evt_${randomBase62(22)}`;
  const body = JSON.stringify({
    id: eventId,
    type: JOB_SUCCEEDED_EVENT_TYPE,
    created: new Date(input.nowMs).toISOString(),
    data: { job_id: input.jobId, status: 'succeeded', poll_url: input.pollUrl },
  });
  return { eventId, keyId: input.keyId, secretVersion: input.secretVersion, url: input.url, body };
}
