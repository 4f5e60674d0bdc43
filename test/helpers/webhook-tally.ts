// What a webhook receiver got for a set of jobs, as the fault matrix asks it (issue 49): one signed
// `transcription.job.succeeded` event per succeeded job. Standard Webhooks delivery is at least
// once: an attempt whose outcome could not be recorded (the database went away just after the POST)
// is sent again with the same `webhook-id`, which receivers drop; so events are counted by id, and
// repeats of an id are counted apart.
import { Webhook } from 'standardwebhooks';

import { JOB_SUCCEEDED_EVENT_TYPE } from '../../src/jobs/job-webhook-events.js';
import type { ReceivedRequest } from './webhook-receiver.js';

export interface WebhookTally {
  /** Succeeded jobs without a verified success event. */
  missing: number;
  /** Jobs with more than one distinct event (two ids: the outcome told twice). */
  duplicated: number;
  /** Requests whose signature (or timestamp) did not verify. */
  unsigned: number;
  /** Requests that repeated an event id already received (a retried attempt; receivers drop them). */
  redelivered: number;
}

export function tallyJobWebhooks(requests: readonly ReceivedRequest[], secret: string, succeededJobIds: readonly string[]): WebhookTally {
  const verifier = new Webhook(secret);
  const eventsByJob = new Map<string, Set<string>>();
  const seen = new Set<string>();
  let unsigned = 0;
  let redelivered = 0;
  for (const request of requests) {
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    let event: { type?: string; data?: { job_id?: string } };
    try {
      event = verifier.verify(request.body.toString('utf8'), headers) as typeof event;
    } catch {
      unsigned++;
      continue;
    }
    if (seen.has(headers['webhook-id'])) redelivered++;
    seen.add(headers['webhook-id']);
    const jobId = event.data?.job_id;
    if (event.type !== JOB_SUCCEEDED_EVENT_TYPE || typeof jobId !== 'string') continue;
    eventsByJob.set(jobId, (eventsByJob.get(jobId) ?? new Set()).add(headers['webhook-id']));
  }
  return {
    missing: succeededJobIds.filter((id) => !eventsByJob.has(id)).length,
    duplicated: [...eventsByJob.values()].filter((ids) => ids.size > 1).length,
    unsigned,
    redelivered,
  };
}
