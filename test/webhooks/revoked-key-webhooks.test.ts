// Issue 14: webhook events of a revoked key are not sent (the decision and its reasons are in
// src/jobs/key-revocation.ts). An event still pending (its receiver was down) when `svc-stt keys
// revoke` runs in another process is cancelled there; an event the worker finds for a revoked key
// (its job succeeded after the revocation, or the CLI did not get to it) is given up before any
// connection is made. Operators see why in the delivery record.
import { join } from 'node:path';

import t from 'tap';

import { isKeyActive } from '../../src/application/require-active-key.js';
import { jobSucceededEvent } from '../../src/jobs/job-webhook-events.js';
import { KEY_REVOKED_DELIVERY_STATUS } from '../../src/jobs/key-revocation.js';
import { KyselyWebhookOutbox } from '../../src/store/kysely/kysely-webhook-outbox.js';
import { KyselyWebhookSecretStore } from '../../src/store/kysely/kysely-webhook-secret-store.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { WebhookDeliveryWorker } from '../../src/webhooks/webhook-delivery-worker.js';
import { TestClock } from '../helpers/api-test-app.js';
import { revokeKeyWithCli } from '../helpers/revoke-key-cli.js';
import { testJobStore, testKeyStore } from '../helpers/test-sealer.js';
import { postTranscription } from '../helpers/test-service.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { startWebhookService } from '../helpers/webhook-service.js';

t.test('a pending event is cancelled by keys revoke and never attempted again', async (t) => {
  const clock = new TestClock(Date.now());
  const receiver = await startWebhookReceiver({ status: 503 });
  t.teardown(() => receiver.close());
  const setup = await startWebhookService(t, { dns: { 'hooks.test': { A: ['127.0.0.1'] } }, start: { clock: clock.now } });
  await setup.createSecret(clock.ms);
  const res = await postTranscription(
    setup.svc.url,
    setup.key,
    { model: 'svc-medical-1', response_format: 'json', language: 'en', webhook_url: `https://hooks.test:${receiver.port}/revoked` },
    { data: setup.audio, name: 'visit.wav', type: 'audio/wav' },
  );
  t.equal(res.status, 202);
  const job = (await res.json()) as { id: string };
  const first = await setup.waitForDelivery(job.id, (d) => d.attempts === 1);
  t.match(first, { state: 'pending', lastStatus: 'http 503' }, 'attempt 1 failed; attempt 2 is due in a minute');

  const output = await revokeKeyWithCli(setup.svc.dataDir, setup.keyId);
  t.equal(output.cancelled_webhook_events, 1, 'the CLI cancels it');
  t.match(await setup.delivery(job.id), { state: 'failed', attempts: 1, lastStatus: KEY_REVOKED_DELIVERY_STATUS, nextAttemptAtMs: null });

  receiver.answer({ status: 204 });
  for (const minutes of [2, 10, 60, 24 * 60]) {
    clock.advance(minutes * 60);
    await setup.svc.service.deliverWebhooksNow();
  }
  t.equal(receiver.requests.length, 1, 'no attempt after the revocation, however long one waits');
});

t.test("the worker gives up a revoked key's event before connecting", async (t) => {
  const db = openDatabase(join(t.testdir(), 'svc-stt.db'));
  t.teardown(() => db.close());
  const keys = testKeyStore(sqliteStoreDb(db));
  const jobs = testJobStore(sqliteStoreDb(db));
  const outbox = new KyselyWebhookOutbox(sqliteStoreDb(db));
  const secrets = new KyselyWebhookSecretStore(sqliteStoreDb(db), Buffer.alloc(32, 5));
  const now = Date.now();
  const revoked = (await keys.create({})).record.id;
  const active = (await keys.create({})).record.id;
  const jobIds = new Map<string, string>();
  for (const keyId of [revoked, active]) {
    await secrets.create(keyId, now);
    const url = 'https://hooks.example/endpoint';
    const job = await jobs.create({
      tenant: 'ten_x',
      keyId,
      status: 'accepted',
      request: {},
      audioPath: null,
      audioSeconds: 3,
      webhookUrl: url,
      webhookSecretVersion: 1,
    });
    await jobs.claimNext('w', now, 60_000);
    const event = jobSucceededEvent({ jobId: job.id, keyId, secretVersion: 1, url, pollUrl: `https://stt.example/v1/jobs/${job.id}`, nowMs: now });
    t.ok(
      await jobs.succeed(
        job.id,
        'w',
        { resultPath: '/r', resultBytes: 1, contentType: 'application/json' },
        { resultExpiresAtMs: now + 1e8, tombstoneUntilMs: now + 2e8 },
        now,
        event,
      ),
    );
    jobIds.set(keyId, job.id);
  }
  // Revoked after its job succeeded (the event was already in the outbox), without the CLI's cleanup.
  await keys.revoke(revoked);

  const posted: string[] = [];
  const worker = new WebhookDeliveryWorker({
    outbox,
    secrets,
    // The destination and the POST are stand-ins: what is under test is whether a POST is made at all.
    validate: async (url) => ({ url: new URL(url), hostname: 'hooks.example', address: '203.0.113.7', family: 4, port: 443 }),
    post: async (_destination, headers) => {
      posted.push(headers['webhook-id']);
      return { delivered: true, status: 204, summary: 'http 204' };
    },
    clock: () => new Date(now),
    attemptTimeoutMs: 1000,
    keyRevoked: async (keyId) => !(await isKeyActive(keys, keyId)),
    instanceId: 'inst_test',
  });
  await worker.deliverDue();
  t.same(posted, [(await outbox.forJob(jobIds.get(active)!))!.eventId], "only the active key's event was posted");
  t.match(await outbox.forJob(jobIds.get(revoked)!), { state: 'failed', attempts: 0, lastStatus: KEY_REVOKED_DELIVERY_STATUS, nextAttemptAtMs: null });
  t.match(await outbox.forJob(jobIds.get(active)!), { state: 'delivered', attempts: 1 });
});
