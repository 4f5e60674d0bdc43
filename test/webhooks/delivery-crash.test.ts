// Crash during delivery, with real processes: the server is SIGKILLed while an attempt is in flight
// (the receiver holds the request unanswered). After the restart the event is delivered — at least
// once, with the same webhook-id — and the operator CLI shows it delivered.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Webhook } from 'standardwebhooks';
import t from 'tap';

import { KyselyWebhookSecretStore } from '../../src/store/kysely/kysely-webhook-secret-store.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { databasePath, openDatabase } from '../../src/store/sqlite/database.js';
import { runMigrations } from '../../src/store/sqlite/migrations.js';
import { loadWebhookMasterKey } from '../../src/webhooks/master-key.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { startDnsTestServer } from '../helpers/dns-test-server.js';
import { CLI_ARGS, kill, serve, serveEnv } from '../helpers/serve-process.js';
import { testKeyStore } from '../helpers/test-sealer.js';
import { postTranscription } from '../helpers/test-service.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

t.test('SIGKILL mid-attempt: delivered after the restart with the same webhook-id', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-hook-crash-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const dns = await startDnsTestServer({ 'hooks.test': { A: ['127.0.0.1'] } });
  t.teardown(() => dns.close());
  const receiver = await startWebhookReceiver({ never: true });
  t.teardown(() => receiver.close());

  // The key and its secret, made the way the CLI makes them (same database, same master key file).
  const db = openDatabase(databasePath(dataDir));
  runMigrations(db);
  const { key, record } = await testKeyStore(sqliteStoreDb(db)).create({});
  const { secret } = await new KyselyWebhookSecretStore(sqliteStoreDb(db), loadWebhookMasterKey(dataDir, null)).create(record.id, Date.now());
  db.close();

  const env = await serveEnv(dataDir, {
    SVC_WEBHOOK_ALLOW_LOOPBACK: '1',
    SVC_WEBHOOK_DNS_SERVERS: dns.servers.join(','),
  });
  let server = await serve(env);
  t.teardown(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });
  t.match(server.stdout() + server.stderr(), /SVC_WEBHOOK_ALLOW_LOOPBACK is set/, 'the test-only setting is logged as a warning');
  const audio = await readFile(await speechWav(3));
  const res = await postTranscription(
    server.url,
    key,
    { model: 'svc-medical-1', response_format: 'json', language: 'en', webhook_url: `https://hooks.test:${receiver.port}/crash` },
    { data: audio, name: 'visit.wav', type: 'audio/wav' },
  );
  t.equal(res.status, 202);
  const job = (await res.json()) as { id: string };

  const [inFlight] = await receiver.waitForRequests(1, 60_000);
  await kill(server);
  receiver.answer({ status: 204 });

  server = await serve(env);
  const requests = await receiver.waitForRequests(2, 60_000);
  t.equal(requests[1]!.headers['webhook-id'], inFlight!.headers['webhook-id'], 'the same event id after the restart');
  t.ok(requests[1]!.body.equals(inFlight!.body), 'the same body');
  t.ok(
    new Webhook(secret).verify(requests[1]!.body.toString('utf8'), {
      'webhook-id': String(requests[1]!.headers['webhook-id']),
      'webhook-timestamp': String(requests[1]!.headers['webhook-timestamp']),
      'webhook-signature': String(requests[1]!.headers['webhook-signature']),
    }),
  );

  // The operator's view, through the real CLI on the same data folder.
  let view: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 100; i++) {
    const { stdout } = await promisify(execFile)(process.execPath, [...CLI_ARGS, 'webhooks', 'deliveries', '--job', job.id, '--json'], { env });
    view = JSON.parse(stdout);
    if (view[0]?.state === 'delivered') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.match(
    view,
    [
      {
        event_id: inFlight!.headers['webhook-id'],
        job_id: job.id,
        state: 'delivered',
        attempts: 1,
        last_status: 'http 204',
        next_attempt_at: null,
        secret_version: 1,
      },
    ],
    'the attempt cut off by the crash is not counted; the one after the restart delivered',
  );
  const { stdout: text } = await promisify(execFile)(process.execPath, [...CLI_ARGS, 'webhooks', 'deliveries', '--job', job.id], { env });
  t.match(text, /state\s+delivered/);
  t.notMatch(text, /whsec_|poll_url/, 'never the secret or the body');
  await kill(server);
});
