// The WebhookOutbox contract (contract/webhook-outbox-contract.ts) against SQLite and PostgreSQL,
// and, once, the event body the outbox carries (it does not depend on the store).
import t from 'tap';

import { postgresJobStores, sqliteJobStores } from './contract/job-store-harnesses.js';
import { eventFor, webhookOutboxContract } from './contract/webhook-outbox-contract.js';

t.test('the event body carries only the contract fields', async (t) => {
  const event = eventFor('job_X');
  const body = JSON.parse(event.body);
  t.match(event.eventId, /^evt_[0-9A-Za-z]{22}$/);
  t.same(body, {
    id: event.eventId,
    type: 'transcription.job.succeeded',
    created: '2031-01-02T03:04:05.000Z',
    data: { job_id: 'job_X', status: 'succeeded', poll_url: 'https://stt.example.com/v1/jobs/job_X' },
  });
  t.not(eventFor('job_X').eventId, event.eventId, 'a fresh id per event');
});

webhookOutboxContract(t, 'KyselyWebhookOutbox on SQLite', sqliteJobStores);
webhookOutboxContract(t, 'KyselyWebhookOutbox on PostgreSQL', postgresJobStores);
