// The console's webhook pages over HTTP, on a real service with a real HTTPS receiver (resolved by a
// real DNS server): a key's signing secret created (shown once), rotated (the previous version shown
// with its 24 h expiry) and revoked (nothing signs; webhook_url refused); deliveries listed with
// their status codes and outcomes, metadata only; a redelivery makes one more request, signed with
// the secrets that sign at that moment, verified by the `standardwebhooks` package; another tenant's
// key or event answers as an unknown one; CSRF; audit lines without secrets.
import { Webhook } from 'standardwebhooks';
import t from 'tap';

import { signingKeyOf } from '../../src/store/webhook-signing-secret.js';
import { captureLogs, recordCanary } from '../helpers/test-logs.js';
import { postTranscription } from '../helpers/test-service.js';
import { type ReceivedRequest, startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { startWebhookService, type WebhookSetup } from '../helpers/webhook-service.js';
import { ConsoleClient, newMember } from './console-client.js';

const PASSWORD = 'juniper-sphygmo-88';
const DAY = 24 * 3600_000;
let setup: WebhookSetup;
let logs: ReturnType<typeof captureLogs>;

t.before(async () => {
  logs = captureLogs();
  setup = await startWebhookService(t, { dns: { 'hooks.test': { A: ['127.0.0.1'] } }, start: { logger: { level: 'info', stream: logs.stream } } });
  recordCanary('filename', PASSWORD);
});

const base = () => setup.svc.service.consoleUrl!;

/** A signed-in client of a new account of `tenant`. */
const member = (tenant: string): Promise<ConsoleClient> => newMember(setup.svc, tenant, PASSWORD);

/** The secret a page shows once (recorded: no log may hold it). */
function secretOf(page: string): string {
  const secret = /<code id="created-secret">([^<]+)<\/code>/.exec(page)?.[1];
  if (!secret) throw new Error('the page shows no new secret');
  recordCanary('webhook_secret', secret);
  return secret;
}

async function acceptWithWebhook(key: string, webhookUrl: string): Promise<string> {
  const res = await postTranscription(
    setup.svc.url,
    key,
    { model: 'svc-medical-1', response_format: 'json', language: 'en', webhook_url: webhookUrl },
    { data: setup.audio, name: 'visit.wav', type: 'audio/wav' },
  );
  if (res.status !== 202) throw new Error(`expected 202, got ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

const headersOf = (r: ReceivedRequest) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

const auditsOf = (tenant: string) => logs.lines().filter((l) => l.msg === 'console audit' && l.tenantId === tenant);

t.test('secrets: created and shown once, rotated with the previous version and its expiry, revoked; within the tenant only', async (t) => {
  const client = await member('clinic-hooks');
  const { id: keyId, key } = await setup.svc.createKey({ tenant: 'clinic-hooks' });
  recordCanary('api_key', key);
  const other = await setup.svc.createKey({ tenant: 'clinic-elsewhere' });
  const listed = await client.get('/webhooks');
  t.equal(listed.status, 200);
  t.match(listed.page, keyId);
  t.notMatch(listed.page, other.id, "another tenant's key is not listed");
  t.match(listed.page, /No signing secret yet/);
  const csrf = ConsoleClient.csrfOf(listed.page);

  t.equal((await client.post(`/webhooks/${keyId}/create`, {})).status, 403, 'no CSRF token');
  t.equal((await client.post(`/webhooks/${keyId}/create`, { csrf }, { origin: 'https://evil.example' })).status, 403, 'another origin');
  const tampered = await client.post(`/webhooks/${other.id}/create`, { csrf });
  t.equal(tampered.status, 404, "another tenant's key id: unknown");
  t.match(tampered.page, /No such key/);
  t.equal(await setup.secrets.activeVersion(other.id, Date.now()), null, 'it got no secret');
  t.equal(await setup.secrets.activeVersion(keyId, Date.now()), null, 'nor did the refused posts make one');

  const created = await client.postFollow(`/webhooks/${keyId}/create`, { csrf });
  t.equal(created.status, 200);
  const first = secretOf(created.page);
  t.match(first, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.ok(created.page.includes('data-copy="created-secret"'), 'with a copy button');
  t.same(await setup.secrets.signingKey(keyId, 1, Date.now()), signingKeyOf(first), 'the secret shown is the one that signs');
  const again = await client.get('/webhooks');
  t.notOk(again.page.includes(first), 'never shown again');
  t.match(again.page, /active: signs every event/);
  t.equal((await client.post(`/webhooks/${keyId}/create`, { csrf })).status, 409, 'a second create (another tab): refused, rotate instead');

  const rotated = await client.postFollow(`/webhooks/${keyId}/rotate`, { csrf });
  t.equal(rotated.status, 200);
  const second = secretOf(rotated.page);
  t.not(second, first);
  const [v1, v2] = await setup.secrets.list(keyId, Date.now());
  t.match(v1, { version: 1, state: 'previous' });
  t.match(v2, { version: 2, state: 'active' });
  t.ok(Math.abs(Date.parse(v1.usableUntil!) - Date.now() - DAY) < 60_000, 'the previous version signs for 24 h more');
  t.match(rotated.page, `version 1 keeps signing until ${v1.usableUntil}`);
  t.match(rotated.page, `previous: still signs until <time datetime="${v1.usableUntil}">`, 'shown with its expiry');

  t.equal((await client.post(`/webhooks/${other.id}/rotate`, { csrf })).status, 404);
  t.equal((await client.post(`/webhooks/${other.id}/revoke`, { csrf })).status, 404);
  const revoked = await client.postFollow(`/webhooks/${keyId}/revoke`, { csrf });
  t.equal(revoked.status, 200);
  t.match(revoked.page, `version 1, 2 of ${keyId} no longer signs`);
  t.match(revoked.page, /revoked <time/);
  t.match(revoked.page, `Create a secret the webhook secret of ${keyId}`, 'a new one can be created');
  t.same(await setup.secrets.signingKeys(keyId, Date.now()), [], 'no version signs, the overlap included');
  const refused = await postTranscription(
    setup.svc.url,
    key,
    { model: 'svc-medical-1', webhook_url: 'https://hooks.test/stt' },
    { data: setup.audio, name: 'visit.wav', type: 'audio/wav' },
  );
  t.equal(refused.status, 422, "the key's webhook_url requests are refused before any job exists");
  t.match(await refused.text(), /needs an active webhook signing secret/);

  t.same(
    auditsOf('clinic-hooks').map((l) => [l.audit, l.keyId ?? null, l.version ?? l.versions ?? null]),
    [
      ['password_set', null, null],
      ['webhook_secret_created', keyId, '1'],
      ['webhook_secret_rotated', keyId, '2'],
      ['webhook_secret_revoked', keyId, '1,2'],
    ],
  );
  for (const secret of [first, second]) t.notOk(logs.text().includes(secret.slice(6)), 'no secret in any log line');
});

t.test('deliveries: real events with status codes and outcomes; redelivered once, signed with what signs now; other tenants cannot', async (t) => {
  const receiver = await startWebhookReceiver({ status: 200 });
  t.teardown(() => receiver.close());
  const failing = await startWebhookReceiver({ status: 503 });
  t.teardown(() => failing.close());
  const client = await member('clinic-deliveries');
  const { id: keyId, key } = await setup.svc.createKey({ tenant: 'clinic-deliveries' });
  recordCanary('api_key', key);
  const empty = await client.get('/webhooks/deliveries');
  t.match(empty.page, /No webhook events yet/);
  const csrf = ConsoleClient.csrfOf(empty.page);
  const secret = secretOf((await client.postFollow(`/webhooks/${keyId}/create`, { csrf })).page);

  const jobId = await acceptWithWebhook(key, `https://hooks.test:${receiver.port}/stt?token=receiver-token`);
  const [first] = await receiver.waitForRequests(1);
  const eventId = String(first!.headers['webhook-id']);
  await setup.waitForDelivery(jobId, (d) => d.state === 'delivered');
  const retryingJob = await acceptWithWebhook(key, `https://hooks.test:${failing.port}/down`);
  const retrying = await setup.waitForDelivery(retryingJob, (d) => d.attempts === 1);

  const listed = await client.get('/webhooks/deliveries');
  t.equal(listed.status, 200);
  const rowOf = (page: string, id: string) => new RegExp(`<tr>\\s*<td><code>${id}</code>[\\s\\S]*?</tr>`).exec(page)?.[0] ?? '';
  const row = rowOf(listed.page, eventId);
  for (const cell of ['transcription.job.succeeded', jobId, keyId, `hooks.test:${receiver.port}`, '<td>1 · HTTP 200</td>', 'delivered', 'Redeliver']) {
    t.ok(row.includes(cell), `the delivered event's row shows ${cell}`);
  }
  const retryRow = rowOf(listed.page, retrying.eventId);
  t.match(retryRow, 'HTTP 503');
  t.match(retryRow, `retrying: next attempt <time datetime="${new Date(retrying.nextAttemptAtMs!).toISOString()}">`);
  t.notMatch(retryRow, 'Redeliver', 'an event with attempts to come has no redeliver button');
  t.ok(listed.page.indexOf(retrying.eventId) < listed.page.indexOf(eventId), 'newest first');
  for (const content of ['receiver-token', '/stt', '/v1/jobs/', '"data"']) t.notOk(listed.page.includes(content), `no payload or path: ${content}`);
  const pending = await client.post(`/webhooks/deliveries/${retrying.eventId}/redeliver`, { csrf });
  t.equal(pending.status, 409, 'an event still being delivered is not redelivered');
  t.match(pending.page, /is still being delivered/);

  const stranger = await member('clinic-stranger');
  const strangerPage = await stranger.get('/webhooks/deliveries');
  t.notOk(strangerPage.page.includes(eventId), "another tenant's events are not listed");
  const strangerCsrf = ConsoleClient.csrfOf(strangerPage.page);
  const tampered = await stranger.post(`/webhooks/deliveries/${eventId}/redeliver`, { csrf: strangerCsrf });
  const unknown = await stranger.post('/webhooks/deliveries/evt_0000000000000000000000/redeliver', { csrf: strangerCsrf });
  t.equal(tampered.status, 404, "another tenant's event id: unknown");
  t.equal(tampered.page, unknown.page, 'answered exactly as an id that does not exist');
  t.equal((await client.post(`/webhooks/deliveries/${eventId}/redeliver`, {})).status, 403, 'no CSRF token');
  t.match(await setup.delivery(jobId), { state: 'delivered', attempts: 1, redeliveryRequestedAtMs: null }, 'nothing was queued by those');

  // Rotated: the new version and the previous one (within its 24 h) both sign what is sent now.
  const rotated = secretOf((await client.postFollow(`/webhooks/${keyId}/rotate`, { csrf })).page);
  receiver.answer({ status: 204 });
  const redelivered = await client.postFollow(`/webhooks/deliveries/${eventId}/redeliver`, { csrf });
  t.equal(redelivered.status, 200);
  t.match(redelivered.page, `Event ${eventId} will be sent again`);
  const [, again] = await receiver.waitForRequests(2);
  t.equal(again!.headers['webhook-id'], eventId, 'the same event id: receivers deduplicate by it');
  t.same(again!.body, first!.body, 'the same bytes');
  const event = JSON.parse(first!.body.toString('utf8'));
  t.same(new Webhook(rotated).verify(again!.body.toString('utf8'), headersOf(again!)), event, 'the active secret verifies the redelivery');
  t.same(new Webhook(secret).verify(again!.body.toString('utf8'), headersOf(again!)), event, 'and so does the previous one, within its 24 h');
  const after = await setup.waitForDelivery(jobId, (d) => d.attempts === 2);
  t.match(after, { state: 'delivered', lastStatus: 'http 204', redeliveryRequestedAtMs: null });
  const afterRow = rowOf((await client.get('/webhooks/deliveries')).page, eventId);
  t.ok(afterRow.includes('<td>2 · HTTP 204</td>'), 'listed with its second attempt');

  // A redelivery is one attempt: when it fails, the event is failed, not retried on the schedule.
  receiver.answer({ status: 500 });
  t.equal((await client.postFollow(`/webhooks/deliveries/${eventId}/redeliver`, { csrf })).status, 200);
  const failed = await setup.waitForDelivery(jobId, (d) => d.attempts === 3);
  t.match(failed, { state: 'failed', lastStatus: 'http 500', nextAttemptAtMs: null, redeliveryRequestedAtMs: null }, 'a failed redelivery is not retried');
  const failedRow = rowOf((await client.get('/webhooks/deliveries')).page, eventId);
  t.ok(failedRow.includes('HTTP 500') && failedRow.includes('failed') && failedRow.includes('Redeliver'), 'listed as failed, to redeliver again');

  // Revoked: nothing may sign now, so nothing is sent.
  t.equal((await client.postFollow(`/webhooks/${keyId}/revoke`, { csrf })).status, 200);
  const unsigned = await client.post(`/webhooks/deliveries/${eventId}/redeliver`, { csrf });
  t.equal(unsigned.status, 409);
  t.match(unsigned.page, /has no webhook signing secret that signs now: create one first/);
  t.match(await setup.delivery(jobId), { state: 'failed', attempts: 3, redeliveryRequestedAtMs: null }, 'and nothing was queued');

  const redeliveries = auditsOf('clinic-deliveries').filter((l) => l.audit === 'webhook_redelivery_requested');
  t.same(
    redeliveries.map((l) => [l.eventId, l.jobId, l.keyId]),
    [
      [eventId, jobId, keyId],
      [eventId, jobId, keyId],
    ],
    'one audit line per redelivery',
  );
  t.equal(auditsOf('clinic-stranger').filter((l) => l.audit !== 'password_set').length, 0, 'the refused attempts changed nothing');
  for (const s of [secret, rotated]) t.notOk(logs.text().includes(s.slice(6)), 'no secret in any log line');
});

t.test('the webhook pages carry the console headers, and send a signed-out visitor to sign in', async (t) => {
  const visitor = new ConsoleClient(base());
  for (const path of ['/webhooks', '/webhooks/deliveries']) {
    const answer = await visitor.get(path);
    t.equal(answer.status, 303, `${path}: signed out`);
    t.equal(answer.headers.get('location'), '/sign-in');
    t.match(answer.headers.get('content-security-policy'), /default-src 'none'/);
  }
  const client = await member('clinic-headers');
  for (const path of ['/webhooks', '/webhooks/deliveries']) {
    const answer = await client.get(path);
    t.equal(answer.status, 200);
    t.notMatch(answer.page, /<script>|\sstyle=|\son[a-z]+=/, `${path}: no inline script, style or handler`);
  }
});
