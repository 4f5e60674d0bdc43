// svc-stt webhooks deliveries --job J: the operator's view of a job's webhook event — state, attempts
// made, the last attempt's outcome and when the next one is due. Never the body or the secret.
import { parseArgs } from 'node:util';

import type { WebhookDelivery } from '../store/webhook-outbox.js';
import { withWebhookOutbox } from './admin-stores.js';
import type { CommandOutput } from './command-output.js';
import { UsageError } from './usage-error.js';

export const DELIVERIES_USAGE = 'usage: npx svc-stt webhooks deliveries --job JOB_ID [--json]';

export async function runWebhookDeliveriesCommand(argv: string[], out: CommandOutput = process.stdout): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { job: { type: 'string' }, json: { type: 'boolean', default: false } }, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${DELIVERIES_USAGE}`);
  }
  const job = parsed.values.job;
  if (!job) throw new UsageError(`--job is required\n${DELIVERIES_USAGE}`);
  const delivery = await withWebhookOutbox((outbox) => outbox.forJob(job));
  const view = delivery ? deliveryView(delivery) : null;
  if (parsed.values.json) {
    out.write(`${JSON.stringify(view ? [view] : [])}\n`);
    return;
  }
  if (!view) {
    out.write(`no webhook event for job ${job} (no webhook requested, or the job has not succeeded yet)\n`);
    return;
  }
  out.write(
    [
      `event        ${view.event_id}`,
      `state        ${view.state}`,
      `attempts     ${view.attempts}`,
      `last attempt ${view.last_attempt_at ?? '-'}  ${view.last_status ?? ''}`.trimEnd(),
      `next attempt ${view.next_attempt_at ?? '-'}`,
      `secret       version ${view.secret_version}`,
    ].join('\n') + '\n',
  );
}

function deliveryView(delivery: WebhookDelivery) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    event_id: delivery.eventId,
    job_id: delivery.jobId,
    state: delivery.state,
    attempts: delivery.attempts,
    last_attempt_at: iso(delivery.lastAttemptAtMs),
    last_status: delivery.lastStatus,
    next_attempt_at: delivery.state === 'pending' ? iso(delivery.nextAttemptAtMs) : null,
    secret_version: delivery.secretVersion,
    created_at: iso(delivery.createdAtMs),
  };
}
