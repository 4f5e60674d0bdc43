// `transcription.job.failed`: a job that asked for a webhook and failed sends one thin, signed event
// (job id, status, failure code; never the message), delivered and verified exactly like the success
// event — whether the audio could not be decoded or the upload never came.
import { readFile } from 'node:fs/promises';

import { Webhook } from 'standardwebhooks';
import t from 'tap';

import { TestClock } from '../helpers/api-test-app.js';
import { randomBytesFile } from '../helpers/audio-fixtures.js';
import { completeJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { type ReceivedRequest, startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { startWebhookService } from '../helpers/webhook-service.js';

/** TestClock advances in seconds. */
const HOUR = 3600;

const headersOf = (r: ReceivedRequest) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

t.test('an undecodable upload fails the job: one signed failed event, the code only', async (t) => {
  const receiver = await startWebhookReceiver({ status: 204 });
  t.teardown(() => receiver.close());
  const setup = await startWebhookService(t, { dns: { 'hooks.test': { A: ['127.0.0.1'] } } });
  const secret = await setup.createSecret(Date.now());
  const noise = await readFile(await randomBytesFile(40_000, 7));
  const job = await createJob(setup.svc.url, setup.key, jobBody(noise, { webhook_url: `https://hooks.test:${receiver.port}/failed` }));
  t.equal((await uploadFile(job, noise)).status, 204);
  t.equal((await completeJob(job, setup.key)).status, 202);

  const [request] = await receiver.waitForRequests(1);
  const event = new Webhook(secret).verify(request!.body.toString('utf8'), headersOf(request!)) as Record<string, unknown>;
  t.same(
    event,
    {
      id: request!.headers['webhook-id'],
      type: 'transcription.job.failed',
      created: event.created,
      data: { job_id: job.id, status: 'failed', error: { code: 'audio_undecodable' }, poll_url: job.poll_url },
    },
    'thin: no message, no file name, no decoder output',
  );
  const done = await waitForEnd(job.poll_url, setup.key);
  t.match(done, { status: 'failed', error: { code: 'audio_undecodable' } }, 'the poll agrees');
  const delivery = await setup.waitForDelivery(job.id, (d) => d.state === 'delivered');
  t.match(delivery, { eventId: event.id, attempts: 1 });
  await new Promise((r) => setTimeout(r, 1000));
  t.equal(receiver.requests.length, 1, 'exactly one event');
});

t.test('an upload that never came fails job_expired: the failed event says so', async (t) => {
  const receiver = await startWebhookReceiver({ status: 200 });
  t.teardown(() => receiver.close());
  // Ends near real time, so the event passes the verifier's ±5 minute window.
  const clock = new TestClock(Date.now() - (2 * HOUR + 1) * 1000);
  const setup = await startWebhookService(t, { dns: { 'hooks.test': { A: ['127.0.0.1'] } }, start: { clock: clock.now } });
  const secret = await setup.createSecret(clock.ms);
  const job = await createJob(setup.svc.url, setup.key, jobBody(setup.audio, { webhook_url: `https://hooks.test:${receiver.port}/expired` }));
  const plain = await createJob(setup.svc.url, setup.key, jobBody(setup.audio));
  clock.advance(2 * HOUR + 1);
  await setup.svc.service.sweepNow();
  t.match((await poll(job.poll_url, setup.key)).body, { status: 'failed', error: { code: 'job_expired' } });
  t.match((await poll(plain.poll_url, setup.key)).body, { status: 'failed', error: { code: 'job_expired' } });

  await setup.svc.service.deliverWebhooksNow();
  const [request] = await receiver.waitForRequests(1);
  const event = new Webhook(secret).verify(request!.body.toString('utf8'), headersOf(request!)) as { data: unknown };
  t.same(event.data, { job_id: job.id, status: 'failed', error: { code: 'job_expired' }, poll_url: job.poll_url });
  t.equal(await setup.delivery(plain.id), null, 'a job without a webhook has no event');
});
