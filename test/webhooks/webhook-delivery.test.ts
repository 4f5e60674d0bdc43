// Webhooks end to end on the real service: a job with webhook_url succeeds, its event reaches a real
// HTTPS receiver (resolved through a real DNS server, connected to the validated address), and the
// Standard Webhooks and Svix libraries verify it unchanged. Retries follow the contract's schedule
// on a controllable clock, each attempt re-signed with a fresh timestamp and the same id.
import { createHmac } from 'node:crypto';

import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import t from 'tap';

import { TestClock } from '../helpers/api-test-app.js';
import { completeJob, createJob, jobBody, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { postTranscription } from '../helpers/test-service.js';
import { type ReceivedRequest, startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { startWebhookService } from '../helpers/webhook-service.js';

const headersOf = (r: ReceivedRequest) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

/** An independent check of the signature (not our signing code): HMAC-SHA256 over id.timestamp.body. */
function signatureValid(secret: string, r: ReceivedRequest): boolean {
  const h = headersOf(r);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${h['webhook-id']}.${h['webhook-timestamp']}.`).update(r.body).digest('base64');
  return h['webhook-signature'].split(' ').includes(`v1,${expected}`);
}

async function acceptWithWebhook(setup: Awaited<ReturnType<typeof startWebhookService>>, webhookUrl: string) {
  const res = await postTranscription(
    setup.svc.url,
    setup.key,
    { model: 'svc-medical-1', response_format: 'json', language: 'en', webhook_url: webhookUrl },
    { data: setup.audio, name: 'visit.wav', type: 'audio/wav' },
  );
  if (res.status !== 202) throw new Error(`expected 202, got ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string; poll_url: string; webhook: { requested: boolean } };
}

t.test('a succeeded job POSTs one signed event that both verifier libraries accept unchanged', async (t) => {
  const receiver = await startWebhookReceiver({ status: 204 });
  t.teardown(() => receiver.close());
  const setup = await startWebhookService(t, { dns: { 'hooks.test': { A: ['127.0.0.1'] } } });
  const secret = await setup.createSecret(Date.now());
  const job = await acceptWithWebhook(setup, `https://hooks.test:${receiver.port}/hooks/stt?tenant=a`);
  t.same(job.webhook, { requested: true }, 'a webhook forces a job even for 3 s of audio');

  const [request] = await receiver.waitForRequests(1);
  t.equal(request!.method, 'POST');
  t.equal(request!.path, '/hooks/stt?tenant=a');
  t.equal(request!.headers.host, `hooks.test:${receiver.port}`);
  t.equal(request!.servername, 'hooks.test', 'TLS was verified for the host name, not the address');
  t.match(request!.headers['content-type'], /^application\/json/);
  const event = JSON.parse(request!.body.toString('utf8'));
  t.same(
    event,
    {
      id: request!.headers['webhook-id'],
      type: 'transcription.job.succeeded',
      created: event.created,
      data: { job_id: job.id, status: 'succeeded', poll_url: job.poll_url },
    },
    'exactly the contract fields: no text, file name, result URL or decoder output',
  );
  t.match(event.id, /^evt_/);
  t.ok(Math.abs(Date.parse(event.created) - Date.now()) < 120_000);

  const headers = headersOf(request!);
  t.same(new Webhook(secret).verify(request!.body.toString('utf8'), headers), event, 'standardwebhooks verifies it');
  t.same(new SvixWebhook(secret).verify(request!.body.toString('utf8'), headers), event, 'svix verifies it');
  const tampered = request!.body.toString('utf8').replace('succeeded', 'failed');
  t.throws(() => new Webhook(secret).verify(tampered, headers), 'a tampered body fails');
  t.throws(() => new SvixWebhook(secret).verify(tampered, headers));
  const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  t.throws(() => new Webhook(other).verify(request!.body.toString('utf8'), headers), 'another secret fails');
  t.throws(() => new SvixWebhook(other).verify(request!.body.toString('utf8'), headers));

  const body = await waitForEnd(job.poll_url, setup.key);
  t.equal(body.status, 'succeeded');
  const delivery = await setup.waitForDelivery(job.id, (d) => d.state === 'delivered');
  t.match(delivery, { eventId: event.id, attempts: 1, lastStatus: 'http 204', nextAttemptAtMs: null, secretVersion: 1 });
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(receiver.requests.length, 1, 'exactly one event');
});

t.test('the timestamp is the time of the attempt: an event sent 10 minutes late is refused by the verifiers', async (t) => {
  const receiver = await startWebhookReceiver({ status: 200 });
  t.teardown(() => receiver.close());
  const clock = new TestClock(Date.now() - 10 * 60_000);
  const setup = await startWebhookService(t, { dns: { 'hooks.test': { A: ['127.0.0.1'] } }, start: { clock: clock.now } });
  const secret = await setup.createSecret(clock.ms);
  await acceptWithWebhook(setup, `https://hooks.test:${receiver.port}/late`);
  const [request] = await receiver.waitForRequests(1);
  t.equal(Number(request!.headers['webhook-timestamp']), Math.floor(clock.ms / 1000));
  t.ok(signatureValid(secret, request!), 'the signature itself is right');
  t.throws(() => new Webhook(secret).verify(request!.body.toString('utf8'), headersOf(request!)), /too old/i);
  t.throws(() => new SvixWebhook(secret).verify(request!.body.toString('utf8'), headersOf(request!)));
});

t.test('retries: down, 500, timeout, redirect (not followed), then up — same id, fresh timestamps', async (t) => {
  // Starts far enough in the past that the fifth attempt (after 1 + 5 + 30 + 120 minutes) is "now",
  // so the delivered event also passes the verifiers' ±5 minute window.
  const clock = new TestClock(Date.now() - (60 + 300 + 1800 + 7200 + 4 * 60) * 1000);
  const down = await startWebhookReceiver();
  const port = down.port;
  await down.close();
  const setup = await startWebhookService(t, {
    dns: { 'hooks.test': { A: ['127.0.0.1'] } },
    env: { SVC_WEBHOOK_ATTEMPT_TIMEOUT_MS: '1500' },
    start: { clock: clock.now },
  });
  const secret = await setup.createSecret(clock.ms);
  const job = await acceptWithWebhook(setup, `https://hooks.test:${port}/retry`);

  const first = await setup.waitForDelivery(job.id, (d) => d.attempts === 1);
  t.match(first, { state: 'pending', lastStatus: 'connect ECONNREFUSED' }, 'attempt 1, immediately: the receiver is down');
  t.ok(first.nextAttemptAtMs! >= clock.ms + 60_000 && first.nextAttemptAtMs! <= clock.ms + 61_200, 'attempt 2 due after 1 minute');

  const receiver = await startWebhookReceiver(
    (_request, index) =>
      [{ status: 500 }, { never: true } as const, { redirect: '/elsewhere', status: 302 as const }, { status: 204 }][index] ?? { status: 204 },
    { port },
  );
  t.teardown(() => receiver.close());
  await setup.svc.service.deliverWebhooksNow();
  t.equal(receiver.requests.length, 0, 'nothing is sent before the next attempt is due');

  const steps = [
    { advance: 62, attempts: 2, status: 'http 500' },
    { advance: 5 * 60 + 7, attempts: 3, status: 'timeout after 1500 ms' },
    { advance: 30 * 60 + 37, attempts: 4, status: 'redirect 302 not followed' },
    { advance: 2 * 3600 + 60, attempts: 5, status: 'http 204' },
  ];
  const stampsAtAttempt: number[] = [];
  for (const step of steps) {
    clock.advance(step.advance);
    stampsAtAttempt.push(Math.floor(clock.ms / 1000));
    await setup.svc.service.deliverWebhooksNow();
    const d = await setup.waitForDelivery(job.id, (x) => x.attempts === step.attempts);
    t.equal(d.lastStatus, step.status, `attempt ${step.attempts}: ${step.status}`);
  }
  t.equal(receiver.requests.length, 4, 'the redirect was not followed');
  t.notOk(receiver.requests.some((r) => r.path === '/elsewhere'));
  const ids = new Set(receiver.requests.map((r) => r.headers['webhook-id']));
  t.equal(ids.size, 1, 'one webhook-id across every attempt');
  t.same(
    receiver.requests.map((r) => Number(r.headers['webhook-timestamp'])),
    stampsAtAttempt,
    'a fresh timestamp per attempt',
  );
  t.ok(
    receiver.requests.every((r) => signatureValid(secret, r)),
    'each attempt signed for its own timestamp',
  );
  t.ok(new Set(receiver.requests.map((r) => r.headers['webhook-signature'])).size === 4, 'so each signature differs');
  t.ok(
    receiver.requests.every((r) => r.body.equals(receiver.requests[0]!.body)),
    'the same body bytes every time',
  );
  const last = receiver.requests.at(-1)!;
  t.ok(new Webhook(secret).verify(last.body.toString('utf8'), headersOf(last)), 'the delivered attempt verifies');
  t.match(await setup.delivery(job.id), { state: 'delivered', attempts: 5, nextAttemptAtMs: null });

  clock.advance(24 * 3600);
  await setup.svc.service.deliverWebhooksNow();
  t.equal(receiver.requests.length, 4, 'a delivered event is never sent again');
});

t.test('six failed attempts, then the event is given up', async (t) => {
  const clock = new TestClock(Date.now());
  const receiver = await startWebhookReceiver({ status: 503 });
  t.teardown(() => receiver.close());
  const setup = await startWebhookService(t, { dns: { 'hooks.test': { A: ['127.0.0.1'] } }, start: { clock: clock.now } });
  await setup.createSecret(clock.ms);
  const job = await acceptWithWebhook(setup, `https://hooks.test:${receiver.port}/always-503`);
  await setup.waitForDelivery(job.id, (d) => d.attempts === 1);
  for (const [i, delay] of [60, 300, 1800, 7200, 28_800].entries()) {
    clock.advance(delay + 60);
    await setup.svc.service.deliverWebhooksNow();
    await setup.waitForDelivery(job.id, (d) => d.attempts === i + 2);
  }
  t.match(await setup.delivery(job.id), { state: 'failed', attempts: 6, lastStatus: 'http 503', nextAttemptAtMs: null });
  clock.advance(48 * 3600);
  await setup.svc.service.deliverWebhooksNow();
  t.equal(receiver.requests.length, 6, 'no seventh attempt');
  // The job itself is unaffected: its result stays available for at least 9 hours.
  const res = await fetch(job.poll_url, { headers: { authorization: `Bearer ${setup.key}` } });
  t.equal(((await res.json()) as { status: string }).status, 'succeeded');
});

/** The `v1,` entries of a delivered event's `webhook-signature`, in order. */
const signaturesOf = (r: ReceivedRequest) => headersOf(r)['webhook-signature'].split(' ');

/** Both receiver libraries, as a receiver holding only `secret` runs them. */
function receivers(secret: string) {
  return {
    standardwebhooks: (r: ReceivedRequest) => new Webhook(secret).verify(r.body.toString('utf8'), headersOf(r)),
    svix: (r: ReceivedRequest) => new SvixWebhook(secret).verify(r.body.toString('utf8'), headersOf(r)),
  };
}

t.test('rotation overlap: events are signed with the new and the previous secret, so a receiver holding either one verifies them', async (t) => {
  // Deliveries at about the real time: the libraries check the timestamp against their own clock.
  const clock = new TestClock(Date.now());
  const receiver = await startWebhookReceiver({ status: 204 });
  t.teardown(() => receiver.close());
  const setup = await startWebhookService(t, { dns: { 'hooks.test': { A: ['127.0.0.1'] } }, start: { clock: clock.now } });
  const v1 = await setup.createSecret(clock.ms);
  const url = `https://hooks.test:${receiver.port}/overlap`;
  const before = await createJob(setup.svc.url, setup.key, jobBody(setup.audio, { webhook_url: url, language: 'en' }));
  const { secret: v2 } = await setup.secrets.rotate(setup.keyId, clock.ms);
  const after = await createJob(setup.svc.url, setup.key, jobBody(setup.audio, { webhook_url: url, language: 'en' }));
  for (const job of [before, after]) {
    t.equal((await uploadFile(job, setup.audio)).status, 204);
    t.equal((await completeJob(job, setup.key)).status, 202);
  }
  await receiver.waitForRequests(2);
  const byJob = (id: string) => receiver.requests.find((r) => JSON.parse(r.body.toString('utf8')).data.job_id === id)!;
  for (const [accepted, job] of [
    ['accepted before the rotation (pinned to 1)', before],
    ['accepted after it (pinned to 2)', after],
  ] as const) {
    const request = byJob(job.id);
    const signatures = signaturesOf(request);
    t.equal(signatures.length, 2, `${accepted}: two signatures`);
    t.ok(signatures.every((s) => /^v1,[A-Za-z0-9+/]{43}=$/.test(s)));
    t.ok(signatureValid(v2, { ...request, headers: { ...request.headers, 'webhook-signature': signatures[0] } }), `${accepted}: the new secret's first`);
    t.ok(signatureValid(v1, { ...request, headers: { ...request.headers, 'webhook-signature': signatures[1] } }), `${accepted}: then the previous one's`);
    const event = JSON.parse(request.body.toString('utf8'));
    for (const [holder, secret] of [
      ['only the old secret', v1],
      ['only the new secret', v2],
    ]) {
      for (const [library, verify] of Object.entries(receivers(secret)))
        t.same(verify(request), event, `${accepted}: ${library} holding ${holder} verifies it`);
    }
  }
});

t.test('rotation: after the 24 h overlap only the active secret signs; a receiver holding only the old one rejects the event', async (t) => {
  // After the 25 hours this test advances, the clock is about now (the verifiers check ±5 minutes).
  const clock = new TestClock(Date.now() - 25 * 3600_000 - 60_000);
  const receiver = await startWebhookReceiver({ status: 204 });
  t.teardown(() => receiver.close());
  const setup = await startWebhookService(t, {
    dns: { 'hooks.test': { A: ['127.0.0.1'] } },
    env: { SVC_UPLOAD_EXPIRY_SECONDS: String(3 * 24 * 3600) },
    start: { clock: clock.now },
  });
  const v1 = await setup.createSecret(clock.ms);
  const url = `https://hooks.test:${receiver.port}/rotation`;
  // Accepted before the rotation (pinned to version 1); uploaded and completed after it.
  const before = await createJob(setup.svc.url, setup.key, jobBody(setup.audio, { webhook_url: url, language: 'en' }));
  const late = await createJob(setup.svc.url, setup.key, jobBody(setup.audio, { webhook_url: url, language: 'en' }));
  const { secret: v2, version } = await setup.secrets.rotate(setup.keyId, clock.ms);
  t.equal(version, 2);
  const after = await createJob(setup.svc.url, setup.key, jobBody(setup.audio, { webhook_url: url, language: 'en' }));

  for (const job of [before, after]) {
    t.equal((await uploadFile(job, setup.audio)).status, 204);
    t.equal((await completeJob(job, setup.key)).status, 202);
  }
  await receiver.waitForRequests(2);
  const byJob = (id: string) => receiver.requests.find((r) => JSON.parse(r.body.toString('utf8')).data.job_id === id)!;
  for (const job of [before, after]) {
    t.ok(signatureValid(v1, byJob(job.id)) && signatureValid(v2, byJob(job.id)), 'within the overlap both versions sign, whatever the pin');
  }

  // 25 hours later version 1 is no longer usable: the late job's event (pinned to 1) is signed with
  // the active version alone, the only one its receiver still accepts.
  clock.advance(25 * 3600);
  t.same(
    (await setup.secrets.list(setup.keyId, clock.ms)).map((s) => [s.version, s.state]),
    [
      [1, 'expired'],
      [2, 'active'],
    ],
  );
  t.equal((await uploadFile(late, setup.audio)).status, 204);
  t.equal((await completeJob(late, setup.key)).status, 202);
  await receiver.waitForRequests(3);
  t.equal(signaturesOf(byJob(late.id)).length, 1, 'one signature');
  t.ok(signatureValid(v2, byJob(late.id)));
  t.notOk(signatureValid(v1, byJob(late.id)), 'the expired version signs nothing');
  t.equal((await setup.delivery(late.id))!.secretVersion, 1, 'the pin is still recorded for operators');
  const event = JSON.parse(byJob(late.id).body.toString('utf8'));
  for (const [library, verify] of Object.entries(receivers(v2))) t.same(verify(byJob(late.id)), event, `${library} holding only the new secret verifies it`);
  for (const [library, verify] of Object.entries(receivers(v1))) {
    t.throws(() => verify(byJob(late.id)), { message: /no matching signature/i }, `${library} holding only the old secret rejects it`);
  }
});

t.test('a job with a webhook keeps its result at least 9 hours, even on a key that keeps results 1 hour', async (t) => {
  const clock = new TestClock(Date.now());
  const receiver = await startWebhookReceiver({ status: 204 });
  t.teardown(() => receiver.close());
  const setup = await startWebhookService(t, { dns: { 'hooks.test': { A: ['127.0.0.1'] } }, start: { clock: clock.now }, key: { retentionHours: 1 } });
  await setup.createSecret(clock.ms);
  const withHook = await acceptWithWebhook(setup, `https://hooks.test:${receiver.port}/keep`);
  const plain = await createJob(setup.svc.url, setup.key, jobBody(setup.audio, { language: 'en' }));
  t.equal((await uploadFile(plain, setup.audio)).status, 204);
  t.equal((await completeJob(plain, setup.key)).status, 202);
  for (const job of [withHook, plain]) t.equal((await waitForEnd(job.poll_url, setup.key)).status, 'succeeded');

  const resultOf = async (pollUrl: string) => {
    const res = await fetch(pollUrl, { headers: { authorization: `Bearer ${setup.key}` } });
    return ((await res.json()) as { result: { expired: boolean } }).result;
  };
  clock.advance(2 * 3600);
  await setup.svc.service.sweepNow();
  t.same(await resultOf(plain.poll_url), { expired: true }, 'the key retention (1 h) applies without a webhook');
  t.equal((await resultOf(withHook.poll_url)).expired, false, 'with a webhook: still there after 2 h');
  clock.advance(6 * 3600 + 59 * 60);
  await setup.svc.service.sweepNow();
  t.equal((await resultOf(withHook.poll_url)).expired, false, 'still there just before 9 h');
  clock.advance(2 * 60);
  await setup.svc.service.sweepNow();
  t.same(await resultOf(withHook.poll_url), { expired: true }, 'gone after 9 h');
});
