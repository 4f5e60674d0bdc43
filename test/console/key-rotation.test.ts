// Key rotation from the console's keys page over HTTP, on a real service with an injectable clock: a
// new key with the old one's terms, shown once and usable at once; the old key usable through the
// overlap the user picked and refused from its end (by authentication, before any sweep); the
// sweeper then revokes it for good and closes what it left open (an open upload form), once; an
// overlap of none revokes at once; a key in its overlap revoked at once from the page; another
// tenant's key id answered as an unknown one; one audit line per rotation, without secrets.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { createJob, jobBody } from '../helpers/jobs-client.js';
import { captureLogs, recordCanary } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { ConsoleClient, newMember } from './console-client.js';

const PASSWORD = 'juniper-otoscope-5531';
const HOUR = 3_600_000;
let svc: TestService;
let logs: ReturnType<typeof captureLogs>;
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);

t.before(async () => {
  logs = captureLogs();
  svc = await startTestService({}, { clock, logger: { level: 'info', stream: logs.stream } });
});
t.teardown(() => svc?.close());

const member = (tenant: string): Promise<ConsoleClient> => newMember(svc, tenant, PASSWORD, { nowMs: clock().getTime() });

const status = async (key: string) => (await fetch(`${svc.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status;
const shown = (page: string) => ({ id: /New key (key_\w+)/.exec(page)![1], key: /<code id="created-key">([^<]+)<\/code>/.exec(page)![1] });

t.test('rotate with an overlap: the new key at once, the old one until the overlap ends, then revoked by the sweeper', async (t) => {
  const client = await member('clinic-rotate');
  const old = await svc.createKey({ tenant: 'clinic-rotate', plan: 'enterprise', entitlements: ['patterns'], retentionHours: 5, defaultLanguage: 'es' });
  const theirs = await svc.createKey({ tenant: 'clinic-elsewhere' });
  recordCanary('api_key', old.key);
  const audio = await readFile(await speechWav(2));
  const openForm = await createJob(svc.url, old.key, jobBody(audio));
  t.equal(openForm.status, 'awaiting_upload', 'the old key left an upload form open');

  const page = await client.get('/keys');
  t.match(page.page, `<form method="post" action="/keys/${old.id}/rotate"`, 'a rotate form on the active key');
  t.match(page.page, /<option value="86400" selected>after 24 hours<\/option>/);
  const csrf = ConsoleClient.csrfOf(page.page);

  t.equal((await client.post(`/keys/${theirs.id}/rotate`, { csrf, overlap_seconds: '3600' })).status, 404, "another tenant's key: unknown");
  t.equal((await svc.stores.keys.get(theirs.id))!.revokeAt, null, 'and untouched');
  t.equal((await svc.stores.keys.list('clinic-elsewhere')).length, 1, 'no key made for it');
  const refused = await client.post(`/keys/${old.id}/rotate`, { csrf, overlap_seconds: '42' });
  t.equal(refused.status, 422);
  t.match(refused.page, /Not rotated: choose when the old key is revoked \(overlap: at once, after 1 hour, after 24 hours, after 7 days\)/);

  const startedAt = clock().getTime();
  const rotated = await client.postFollow(`/keys/${old.id}/rotate`, { csrf, overlap_seconds: '3600' });
  t.equal(rotated.status, 200);
  const fresh = shown(rotated.page);
  recordCanary('api_key', fresh.key);
  t.match(rotated.page, `Key ${old.id} rotated: the new key ${fresh.id} works now; ${old.id} works until`);
  t.match(rotated.page, /active until \d{4}-\d\d-\d\d \d\d:\d\d UTC \(rotated\), then revoked/, 'the old key shows when it is revoked');
  t.match(rotated.page, `aria-label="Revoke now ${old.id}"`, 'and can be revoked at once');
  t.notMatch(rotated.page, `action="/keys/${old.id}/rotate"`, 'not rotated twice');
  t.equal((await client.post(`/keys/${old.id}/rotate`, { csrf, overlap_seconds: '0' })).status, 422, 'a key in its overlap is rotated already');
  t.match(await svc.stores.keys.get(fresh.id), {
    tenant: 'clinic-rotate',
    plan: 'enterprise',
    entitlements: ['patterns'],
    retentionHours: 5,
    defaultLanguage: 'es',
  });
  t.equal(await status(fresh.key), 200, 'the new key works at once');
  t.equal(await status(old.key), 200, 'the old one too, during the overlap');
  t.notMatch((await client.get('/keys')).page, fresh.key, 'the new key is shown once');

  offsetMs += HOUR - 60_000;
  t.equal(await status(old.key), 200, 'a minute before the overlap ends');
  offsetMs += 61_000;
  t.equal(await status(old.key), 401, 'refused once it ended, before any sweep');
  t.equal(await status(fresh.key), 200);
  await svc.service.sweepNow();
  const revoked = await svc.stores.keys.get(old.id);
  t.ok(revoked!.revokedAt !== null && Math.abs(Date.parse(revoked!.revokedAt) - (startedAt + HOUR)) < 5_000, 'revoked for good, dated when the overlap ended');
  t.match(await svc.stores.jobs.getById(openForm.id), { status: 'failed', errorCode: 'job_expired', errorMessage: /revoked/ }, 'its open upload form closed');
  await svc.service.sweepNow();
  const sweeps = logs.lines().filter((l) => l.audit === 'key_revoked' && l.keyId === old.id);
  t.equal(sweeps.length, 1, 'revoked on schedule once');
  t.match(sweeps[0], { tenantId: 'clinic-rotate', scheduled: true, slotsClosed: 1 });

  const audits = logs.lines().filter((l) => l.msg === 'console audit' && l.tenantId === 'clinic-rotate' && l.audit === 'key_rotated');
  t.equal(audits.length, 1, 'one audit line per rotation');
  t.match(audits[0], { keyId: fresh.id, rotatedKeyId: old.id, revokeAt: new Date(startedAt + HOUR).toISOString().slice(0, 15) });
  t.notMatch(logs.text(), fresh.key, 'no key in any log line');
  t.notMatch(logs.text(), old.key);
});

t.test('an overlap of none revokes the old key at once; a key in its overlap can be revoked at once', async (t) => {
  const client = await member('clinic-rotate-now');
  const first = await svc.createKey({ tenant: 'clinic-rotate-now' });
  const csrf = ConsoleClient.csrfOf((await client.get('/keys')).page);
  const now = await client.postFollow(`/keys/${first.id}/rotate`, { csrf, overlap_seconds: '0' });
  t.equal(now.status, 200);
  t.match(now.page, `${first.id} revoked now`);
  const second = shown(now.page);
  t.equal(await status(first.key), 401, 'the old key is refused at once');
  t.equal(await status(second.key), 200);
  t.not((await svc.stores.keys.get(first.id))!.revokedAt, null);

  const week = await client.postFollow(`/keys/${second.id}/rotate`, { csrf, overlap_seconds: String(7 * 86_400) });
  t.equal(week.status, 200);
  t.match(week.page, /works until \d{4}-\d\d-\d\d \d\d:\d\d UTC, then it is revoked/);
  t.equal(await status(second.key), 200, 'in its week of overlap');
  t.equal((await client.postFollow(`/keys/${second.id}/revoke`, { csrf, confirm: 'revoke' })).status, 200, 'revoked now from the page');
  t.equal(await status(second.key), 401);
  t.equal(await status(shown(week.page).key), 200, 'its successor goes on');
});
