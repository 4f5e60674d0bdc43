// What this service POSTs to a job's `webhook_url` (OpenAPI 3.1 `webhooks`): requests it makes, not
// routes it serves, so they are declared here rather than recorded from the routes.
import { JOB_FAILED_EVENT_TYPE, JOB_SUCCEEDED_EVENT_TYPE } from '../jobs/job-webhook-events.js';
import { schemas } from './openapi-components.js';
import type { Operation, Parameter } from './openapi-types.js';

/** The Standard Webhooks headers of every event attempt. */
const WEBHOOK_HEADERS: Parameter[] = [
  { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, description: 'Stable event id (`evt_...`), for deduplication.' },
  { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string' }, description: 'Unix seconds of this attempt.' },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: '`v1,<base64>`; within 24 h of a secret rotation several, space-separated, the new secret first: accept if any one matches.',
  },
];

const ACKNOWLEDGED = { '2XX': { description: 'Accepted durably by the receiver; no further attempts.' } };

export const WEBHOOK_OPERATIONS: Record<string, Operation> = {
  [JOB_SUCCEEDED_EVENT_TYPE]: {
    operationId: 'jobSucceededWebhook',
    summary: 'A job reached `succeeded` (sent once; at least once on the wire — deduplicate by `webhook-id`)',
    description:
      'Signed the Standard Webhooks way: ' +
      '`webhook-signature` is `v1,` + Base64(HMAC-SHA256(key, `<webhook-id>.<webhook-timestamp>.<raw body>`)), ' +
      'the key being the Base64-decoded secret after its `whsec_` prefix. Reject timestamps outside ±300 s. ' +
      'Attempts: immediately, then after 1 min, 5 min, 30 min, 2 h and 8 h; 10 s each; redirects are not followed; any 2xx acknowledges.',
    security: [],
    parameters: WEBHOOK_HEADERS,
    requestBody: { required: true, content: { 'application/json': { schema: schemas.JobSucceededEvent } } },
    responses: ACKNOWLEDGED,
  },
  [JOB_FAILED_EVENT_TYPE]: {
    operationId: 'jobFailedWebhook',
    summary: 'A job reached `failed` (sent once; at least once on the wire — deduplicate by `webhook-id`)',
    description: 'Signed, attempted and acknowledged exactly like `transcription.job.succeeded`. Not sent for upload slots closed by a key revocation.',
    security: [],
    parameters: WEBHOOK_HEADERS,
    requestBody: { required: true, content: { 'application/json': { schema: schemas.JobFailedEvent } } },
    responses: ACKNOWLEDGED,
  },
};
