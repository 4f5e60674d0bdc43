// The delivery worker against destinations that bypassed request-time admission (stored before a
// rule changed, or DNS changed since): every attempt re-validates, so each case of the SSRF matrix is
// refused at delivery time too, without a connection, and recorded for operators.
import { join } from 'node:path';

import t from 'tap';

import { jobSucceededEvent } from '../../src/jobs/job-webhook-events.js';
import { KyselyWebhookOutbox } from '../../src/store/kysely/kysely-webhook-outbox.js';
import { KyselyWebhookSecretStore } from '../../src/store/kysely/kysely-webhook-secret-store.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { postWebhook } from '../../src/webhooks/post-webhook.js';
import { createDestinationValidator } from '../../src/webhooks/validate-destination.js';
import { WebhookDeliveryWorker } from '../../src/webhooks/webhook-delivery-worker.js';
import { startDnsTestServer } from '../helpers/dns-test-server.js';
import { REFUSED, SSRF_DNS } from '../helpers/ssrf-cases.js';
import { testJobStore, testKeyStore } from '../helpers/test-sealer.js';

t.test('every SSRF case is refused at delivery time and rescheduled, never connected', async (t) => {
  const dns = await startDnsTestServer(SSRF_DNS);
  t.teardown(() => dns.close());
  const db = openDatabase(join(t.testdir(), 'svc-stt.db'));
  t.teardown(() => db.close());
  const jobs = testJobStore(sqliteStoreDb(db));
  const outbox = new KyselyWebhookOutbox(sqliteStoreDb(db));
  const keyId = (await testKeyStore(sqliteStoreDb(db)).create({})).record.id;
  const secrets = new KyselyWebhookSecretStore(sqliteStoreDb(db), Buffer.alloc(32, 3));
  const now = Date.now();
  await secrets.create(keyId, now);

  const ids = new Map<string, string>();
  for (const [name, url] of REFUSED) {
    const job = await jobs.create({
      tenant: 'ten_a',
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
    ids.set(name, job.id);
  }
  let connections = 0;
  const worker = new WebhookDeliveryWorker({
    outbox,
    secrets,
    validate: createDestinationValidator({ allowLoopback: false, dnsServers: dns.servers }),
    post: (...args) => {
      connections += 1;
      return postWebhook(...args);
    },
    clock: () => new Date(now),
    attemptTimeoutMs: 1000,
    keyRevoked: async () => false,
    instanceId: 'inst_test',
  });
  t.equal(await worker.deliverDue(), REFUSED.length, 'one attempt per event');
  t.equal(connections, 0, 'no connection was attempted');
  for (const [name] of REFUSED) {
    const delivery = (await outbox.forJob(ids.get(name)!))!;
    t.match(delivery, { state: 'pending', attempts: 1, lastStatus: /^refused: / }, `${name}: refused at delivery (${delivery.lastStatus})`);
    t.ok(delivery.nextAttemptAtMs! >= now + 60_000, `${name}: retried on the schedule`);
  }
});
