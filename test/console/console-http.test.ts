// The developer console over HTTP (src/console/), on a real service (SQLite; its own listener): an
// operator's invite, the invitee's password (the rules, the link used once), sign-in (one answer for
// an unknown email and a wrong password, a new session whatever cookie came, wrong passwords locking
// the email from that address alike for an unknown one, a limit per address, warnings of each failure),
// the cookie's flags, CSRF and same-origin checks on every change, keys created (shown once) and
// revoked within the tenant only, sign-out, the headers of every page, and the audit lines (no secret
// in any log).
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { INVITE_TTL_MS, runConsoleUsersCommand } from '../../src/cli/console-users-command.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { completeJob, createJob, jobBody, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { captureLogs, recordCanary } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { ConsoleClient, newMember, postFrom } from './console-client.js';

const PASSWORD = 'amber-stethoscope-42';
let svc: TestService;
let logs: ReturnType<typeof captureLogs>;
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);

t.before(async () => {
  logs = captureLogs();
  svc = await startTestService({}, { clock, logger: { level: 'info', stream: logs.stream } });
  recordCanary('filename', PASSWORD);
});
t.teardown(() => svc?.close());

const base = () => svc.service.consoleUrl!;

/** A signed-in client of a new account of `tenant`. */
const member = (tenant: string, email?: string): Promise<ConsoleClient> => newMember(svc, tenant, PASSWORD, { email, nowMs: clock().getTime() });

t.test('an invite: the CLI prints a one-time link; the password rules; used once; signed in with a safe cookie', async (t) => {
  let printed = '';
  const saved = { dir: process.env.SVC_DATA_DIR, port: process.env.SVC_CONSOLE_URL };
  process.env.SVC_DATA_DIR = svc.dataDir;
  process.env.SVC_CONSOLE_URL = base();
  t.teardown(() => {
    process.env.SVC_DATA_DIR = saved.dir;
    if (saved.port === undefined) delete process.env.SVC_CONSOLE_URL;
    else process.env.SVC_CONSOLE_URL = saved.port;
  });
  await runConsoleUsersCommand(['invite', '--tenant', 'clinic-invite', '--email', 'Dr.Lee@Clinic.example', '--json'], { write: (s: string) => (printed += s) });
  const { link, expires_at } = JSON.parse(printed) as { link: string; expires_at: string };
  t.ok(link.startsWith(`${base()}/invite/`), 'a link to the console');
  t.ok(Math.abs(Date.parse(expires_at) - Date.now() - INVITE_TTL_MS) < 60_000, 'valid 24 hours');
  const path = link.slice(base().length);

  const client = new ConsoleClient(base());
  const page = await client.get(path);
  t.equal(page.status, 200);
  t.match(page.page, /dr\.lee@clinic\.example/, 'the email, lower-cased');
  for (const [form, rule] of [
    [{ password: 'short-one', repeat: 'short-one' }, /at least 12 characters/],
    [{ password: 'password1234', repeat: 'password1234' }, /most common/],
    [{ password: 'aaaaaaaaaaaaaa', repeat: 'aaaaaaaaaaaaaa' }, /one character repeated/],
    [{ password: PASSWORD, repeat: `${PASSWORD}x` }, /differ/],
  ] as const) {
    const refused = await client.post(path, form);
    t.equal(refused.status, 422, `refused: ${String(rule)}`);
    t.match(refused.page, rule);
    t.notMatch(refused.page, new RegExp(form.password), 'the password is never echoed');
  }
  const accepted = await client.post(path, { password: PASSWORD, repeat: PASSWORD });
  t.equal(accepted.status, 303);
  t.equal(accepted.headers.get('location'), '/keys');
  const cookie = accepted.headers.get('set-cookie')!;
  t.match(cookie, /^svc_console_session=[A-Za-z0-9_-]{20,};/);
  t.match(cookie, /HttpOnly/);
  t.match(cookie, /SameSite=Strict/);
  t.notMatch(cookie, /Secure/, 'plain HTTP on loopback: not Secure (anywhere else it is)');
  t.equal((await client.get('/keys')).status, 200, 'signed in');
  t.equal((await new ConsoleClient(base()).get(path)).status, 404, 'the link works once');
});

t.test('sign-in: one answer for an unknown email and a wrong password; a new session whatever cookie came; sign-out', async (t) => {
  await member('clinic-sign-in', 'nurse@clinic.example');
  const stranger = new ConsoleClient(base());
  const unknown = await stranger.post('/sign-in', { email: 'nobody@clinic.example', password: PASSWORD });
  const wrong = await stranger.post('/sign-in', { email: 'nurse@clinic.example', password: 'not-the-password' });
  t.equal(unknown.status, 401);
  t.equal(wrong.status, 401);
  t.equal(unknown.page.replace('nobody@', 'nurse@'), wrong.page, 'the same page: it does not tell which accounts exist');

  const client = new ConsoleClient(base());
  client.cookie = 'chosen-by-an-attacker-0123456789abcdef';
  const signed = await client.post('/sign-in', { email: 'NURSE@clinic.example', password: PASSWORD });
  t.equal(signed.status, 303);
  t.not(client.cookie, 'chosen-by-an-attacker-0123456789abcdef', 'a fresh session token, never the one sent');
  const keys = await client.get('/keys');
  t.equal(keys.status, 200);
  const out = await client.post('/sign-out', { csrf: ConsoleClient.csrfOf(keys.page) });
  t.equal(out.status, 303);
  t.match(out.headers.get('set-cookie'), /Max-Age=0/);
  const after = new ConsoleClient(base());
  after.cookie = /svc_console_session=([^;]*)/.exec(signed.headers.get('set-cookie')!)![1];
  t.equal((await after.get('/keys')).status, 303, 'the old session token opens nothing');
});

t.test('sign-out everywhere ends every session of the account, and only its', async (t) => {
  const laptop = await member('clinic-everywhere', 'gp@clinic.example');
  const phone = new ConsoleClient(base());
  t.equal((await phone.post('/sign-in', { email: 'gp@clinic.example', password: PASSWORD })).status, 303);
  const colleague = await member('clinic-everywhere', 'nurse2@clinic.example');
  const out = await phone.post('/sign-out-everywhere', { csrf: ConsoleClient.csrfOf((await phone.get('/keys')).page) });
  t.equal(out.status, 303);
  t.equal((await laptop.get('/keys')).status, 303, 'the other session of the account ended too');
  t.equal((await phone.get('/keys')).status, 303);
  t.equal((await colleague.get('/keys')).status, 200, "another account's session goes on");
  t.ok(
    logs.lines().some((l) => l.audit === 'signed_out_everywhere' && l.tenantId === 'clinic-everywhere' && l.sessions === '2'),
    'audited with the count',
  );
});

t.test('wrong passwords lock the email from that address only, alike for an unknown email; the owner elsewhere signs in; audited', async (t) => {
  const owner = await member('clinic-lockout', 'locked@clinic.example');
  await member('clinic-lockout', 'colleague@clinic.example');
  const userId = (await svc.stores.consoleAccounts.signInRecord('locked@clinic.example'))!.id;
  const logged = logs.lines().length;
  offsetMs += 61_000; // a fresh minute for the address limit
  const client = new ConsoleClient(base());
  const fiveWrong = async (email: string) => {
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await client.post('/sign-in', { email, password: `wrong-${i}-attempt` }));
    return { statuses: answers.map((a) => a.status), last: answers[4] };
  };
  const known = await fiveWrong('locked@clinic.example');
  const unknown = await fiveWrong('no-account@clinic.example');
  t.same(known.statuses, [401, 401, 401, 401, 429], 'a known email: the fifth wrong password locks it from this address');
  t.same(unknown.statuses, known.statuses, 'an unknown email: the same');
  t.match(known.last.page, /Too many failed sign-ins for this email from this address: try again in 15 minutes/);
  t.equal(known.last.headers.get('retry-after'), '900');
  t.equal(unknown.last.headers.get('retry-after'), '900');
  t.equal(unknown.last.page.replaceAll('no-account@', 'someone@'), known.last.page.replaceAll('locked@', 'someone@'), 'the same page but for the email typed');
  t.notMatch(known.last.page, /account/i, 'not a word of an account');
  offsetMs += 61_000; // ten attempts from this address in that minute: its limit

  const locked = await client.post('/sign-in', { email: 'locked@clinic.example', password: PASSWORD });
  t.equal(locked.status, 429, 'locked from this address: the right password too');
  t.match(locked.page, /for this email from this address: try again in 14 minutes/);
  t.match(await svc.stores.consoleAccounts.signInRecord('locked@clinic.example'), { failedSignIns: 0, lockedUntilMs: null }, 'the account is not locked');
  const elsewhere = await postFrom('127.0.0.2', base(), '/sign-in', { email: 'locked@clinic.example', password: PASSWORD });
  t.equal(elsewhere.status, 303, 'the owner at another address signs in: a stranger cannot lock them out');
  t.equal(elsewhere.headers.get('location'), '/keys');
  t.equal((await client.post('/sign-in', { email: 'colleague@clinic.example', password: PASSWORD })).status, 303, 'another email from this address');
  t.equal((await owner.get('/keys')).status, 200, "the owner's session goes on");
  offsetMs += 15 * 60_000;
  t.equal((await client.post('/sign-in', { email: 'locked@clinic.example', password: PASSWORD })).status, 303, 'lifted after 15 minutes');

  const lines = logs.lines().slice(logged);
  const warned = (audit: string) => lines.filter((l) => l.audit === audit && l.level === 40 && l.msg === 'console audit');
  t.same(
    warned('sign_in_failed').map((l) => l.userId ?? null),
    [...Array(5).fill(userId), ...Array(5).fill(null)],
    'every wrong password: a warning, with the account id where there is one',
  );
  t.ok(
    warned('sign_in_failed').every((l) => l.reason === 'password' && typeof l.address === 'string'),
    'the reason and the address',
  );
  t.same(
    warned('sign_in_locked').map((l) => [l.scope, l.userId ?? null]),
    [
      ['email_from_address', userId],
      ['email_from_address', null],
    ],
    'each lock',
  );
  t.same(
    warned('sign_in_refused').map((l) => l.reason),
    ['email_locked'],
    'the refusal while locked',
  );
  const text = lines.map((l) => JSON.stringify(l)).join('\n');
  t.notMatch(text, /locked@|no-account@|wrong-\d-attempt/, 'no email or password typed in any line');

  // The address limit (10 a minute) stops the guessing across emails.
  offsetMs += 61_000;
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await client.post('/sign-in', { email: `guess-${i}@clinic.example`, password: 'guessing-away-1' })).status);
  t.same(statuses.slice(0, 10), Array(10).fill(401));
  t.equal(statuses[10], 429, 'the 11th in a minute from one address');
  t.match(logs.lines().at(-1), { audit: 'sign_in_refused', reason: 'address_limit', level: 40 }, 'audited');
  offsetMs += 61_000;
});

t.test('every change needs the session CSRF token and the console origin', async (t) => {
  const client = await member('clinic-csrf');
  const csrf = ConsoleClient.csrfOf((await client.get('/keys')).page);
  t.equal((await client.post('/keys', {})).status, 403, 'no token');
  t.equal((await client.post('/keys', { csrf: `${csrf.slice(1)}x` })).status, 403, 'a wrong token');
  t.equal((await client.post('/keys', { csrf }, { origin: 'https://evil.example' })).status, 403, 'another origin');
  t.equal((await client.post('/keys', { csrf }, { 'sec-fetch-site': 'cross-site' })).status, 403, 'a cross-site request');
  t.equal((await svc.stores.keys.list('clinic-csrf')).length, 0, 'no key was made');
  t.equal((await client.post('/keys', { csrf })).status, 303);
});

t.test('keys: created and shown once, usable at once; revoked within the tenant only; audit lines without secrets', async (t) => {
  const client = await member('clinic-keys');
  const other = await svc.createKey({ tenant: 'clinic-elsewhere' });
  const csrf = ConsoleClient.csrfOf((await client.get('/keys')).page);
  const posted = await client.post('/keys', { csrf });
  t.equal(posted.status, 303, 'a change answers with its page');
  t.equal(posted.headers.get('location'), '/keys');
  t.match(posted.headers.get('set-cookie'), /^svc_console_flash=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=60$/, 'the one-time flash');
  const created = await client.follow(posted);
  t.equal(created.status, 200);
  const key = /<code id="created-key">([^<]+)<\/code>/.exec(created.page)![1];
  recordCanary('api_key', key);
  const id = /New key (key_\w+)/.exec(created.page)![1];
  t.notMatch(posted.headers.get('set-cookie'), key, 'sealed: the key is not in the cookie as text');
  t.equal((await fetch(`${svc.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status, 200, 'the new key works on the API');
  const listed = await client.get('/keys');
  t.match(listed.page, id);
  t.notMatch(listed.page, key, 'never shown again');

  const tampered = await client.post(`/keys/${other.id}/revoke`, { csrf, confirm: 'revoke' });
  t.equal(tampered.status, 404, "another tenant's key id: not found");
  t.equal((await client.get(`/keys/${other.id}/revoke`)).status, 404, 'nor its confirmation page');
  t.equal((await fetch(`${svc.url}/v1/models`, { headers: { authorization: `Bearer ${other.key}` } })).status, 200, 'and still active');
  const revoked = await client.postFollow(`/keys/${id}/revoke`, { csrf, confirm: 'revoke' });
  t.equal(revoked.status, 200);
  t.match(revoked.page, /revoked/);
  t.equal((await fetch(`${svc.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status, 401, 'refused at once');

  const audits = logs.lines().filter((l) => l.msg === 'console audit' && l.tenantId === 'clinic-keys');
  t.same(
    audits.map((l) => l.audit),
    ['password_set', 'key_created', 'key_revoked'],
  );
  t.ok(
    audits.filter((l) => l.audit !== 'password_set').every((l) => l.keyId === id),
    'naming the key by id',
  );
  t.notMatch(logs.text(), key, 'no key in any log line');
  t.notMatch(logs.text(), PASSWORD, 'no password in any log line');
});

t.test("a key's retention and default language: saved within the tenant only, refused out of range, followed by the next job", async (t) => {
  const client = await member('clinic-settings');
  const csrf = ConsoleClient.csrfOf((await client.get('/keys')).page);
  const created = await client.postFollow('/keys', { csrf });
  const key = /<code id="created-key">([^<]+)<\/code>/.exec(created.page)![1];
  recordCanary('api_key', key);
  const id = /New key (key_\w+)/.exec(created.page)![1];
  const refused = await client.post(`/keys/${id}/settings`, { csrf, retention_hours: '73', default_language: '' });
  t.equal(refused.status, 422);
  t.match(refused.page, /Not saved: retention hours must be an integer from 1 to 72/);
  t.equal((await client.post(`/keys/${id}/settings`, { csrf, retention_hours: '2', default_language: 'klingon' })).status, 422);
  // Issue 43: hexadecimal and exponent forms were read as 16 h and 10 h.
  for (const written of ['0x10', '1e1', ' 2', '2.0', '+2', '']) {
    const odd = await client.post(`/keys/${id}/settings`, { csrf, retention_hours: written, default_language: '' });
    t.equal(odd.status, 422, `retention_hours ${JSON.stringify(written)} is refused`);
    t.match(odd.page, /retention hours must be an integer from 1 to 72/);
  }
  t.equal((await svc.stores.keys.get(id))!.retentionHours, 24, 'none was saved');
  const other = await svc.createKey({ tenant: 'clinic-not-mine' });
  t.equal((await client.post(`/keys/${other.id}/settings`, { csrf, retention_hours: '1', default_language: '' })).status, 404);
  t.equal((await svc.stores.keys.get(other.id))!.retentionHours, 24, "another tenant's key is untouched");

  const saved = await client.postFollow(`/keys/${id}/settings`, { csrf, retention_hours: '2', default_language: 'es' });
  t.equal(saved.status, 200);
  t.match(saved.page, /saved: the API follows it/);
  t.match(await svc.stores.keys.get(id), { retentionHours: 2, defaultLanguage: 'es' });
  const audio = await readFile(await speechWav(2));
  const job = await createJob(svc.url, key, jobBody(audio));
  t.equal((await uploadFile(job, audio)).status, 204);
  t.equal((await completeJob(job, key)).status, 202);
  const done = await waitForEnd(job.poll_url, key);
  t.equal(done.status, 'succeeded');
  t.ok(Math.abs(done.result.expires_in_seconds - 2 * 3600) < 120, `the job's result is kept 2 h (${done.result.expires_in_seconds} s left)`);
});

t.test('every page and asset carries the security headers; unknown pages are 404; signed out, pages send to sign-in', async (t) => {
  const client = new ConsoleClient(base());
  for (const path of ['/sign-in', '/keys', '/assets/console.css', '/assets/console.js', '/no-such-page', '/invite/not-a-token']) {
    const answer = await client.get(path);
    const csp = answer.headers.get('content-security-policy') ?? '';
    t.match(csp, /default-src 'none'/, `${path}: CSP`);
    t.match(csp, /script-src 'self'/);
    t.notMatch(csp, /unsafe-inline|unsafe-eval|https?:/, `${path}: no inline script and no other origin`);
    t.equal(answer.headers.get('x-frame-options'), 'DENY');
    t.equal(answer.headers.get('cache-control'), 'no-store');
  }
  t.equal((await client.get('/keys')).status, 303);
  const lost = await client.get('/no-such-page');
  t.equal(lost.status, 404);
  t.notMatch(lost.page, /href="\/usage"/, 'signed out: no tenant navigation');
  t.notMatch((await client.get('/sign-in')).page, /<script>|\sstyle=|\son[a-z]+=/, 'no inline script, style or handler');
  // Issue 50: signed in, a mistyped address keeps the navigation and the sign-out form.
  const member = await newMember(svc, 'clinic-lost', PASSWORD, { nowMs: clock().getTime() });
  const signedIn = await member.get('/keys/typo');
  t.equal(signedIn.status, 404);
  for (const href of ['/keys', '/webhooks', '/usage', '/account']) t.match(signedIn.page, `href="${href}"`, `signed in: a link to ${href}`);
  t.match(signedIn.page, /name="csrf"/, 'and the sign-out form');
});

t.test('issue 50: a change redirects to its page; its outcome shows once, to its session and page only', async (t) => {
  const client = await member('clinic-prg');
  const csrf = ConsoleClient.csrfOf((await client.get('/keys')).page);
  const posted = await client.post('/keys', { csrf });
  const flash = client.flash!;
  // Another session (the same tenant's other account) sent the same cookie cannot open it.
  const stranger = await newMember(svc, 'clinic-prg', PASSWORD, { email: 'other@clinic.example', nowMs: clock().getTime() });
  stranger.flash = flash;
  const theirs = await stranger.get('/keys');
  t.notMatch(theirs.page, /created-key|notice/, "another session's flash opens nowhere");
  t.match(theirs.headers.get('set-cookie'), /svc_console_flash=;.*Max-Age=0/, 'and is cleared');
  // Nor does another page of the same session.
  t.notMatch((await client.get('/webhooks')).page, /created-key|class="notice/, "the keys page's flash does not open on /webhooks");
  client.flash = flash;
  const shown = await client.follow(posted);
  t.match(shown.page, /<code id="created-key">svc_/, 'its page opens it');
  t.match(shown.page, /class="notice ok"/);
  const reloaded = await client.get('/keys');
  t.notMatch(reloaded.page, /created-key|class="notice/, 'a reload shows the page without the outcome');
  t.equal((await svc.stores.keys.list('clinic-prg')).length, 1, 'and made no second key');

  // A change's address opened as a page leads to its page, never a 404.
  const id = /<td><code>(key_\w+)<\/code>/.exec(reloaded.page)![1];
  for (const path of [`/keys/${id}/rotate`, `/keys/${id}/settings`, `/webhooks/${id}/create`, '/webhooks/deliveries/evt_x/redeliver', '/account/totp']) {
    const opened = await client.get(path);
    t.equal(opened.status, 303, `GET ${path}`);
    t.match(opened.headers.get('location'), /^\/(keys|webhooks|webhooks\/deliveries|account)$/);
  }
});

t.test('issue 50: revoking a key takes its confirmation page; a revoke without it changes nothing', async (t) => {
  const client = await member('clinic-confirm');
  const { id, key } = await svc.createKey({ tenant: 'clinic-confirm' });
  recordCanary('api_key', key);
  const keys = await client.get('/keys');
  const csrf = ConsoleClient.csrfOf(keys.page);
  t.match(keys.page, `<a href="/keys/${id}/revoke" class="button danger" aria-label="Revoke ${id}">`, 'the list links to the confirmation');
  t.notMatch(keys.page, `action="/keys/${id}/revoke"`, 'and has no one-click revoke');
  const unconfirmed = await client.post(`/keys/${id}/revoke`, { csrf });
  t.equal(unconfirmed.status, 303, 'a revoke without the confirmation');
  t.equal(unconfirmed.headers.get('location'), `/keys/${id}/revoke`, 'is sent to the confirmation page');
  t.equal((await svc.stores.keys.get(id))!.revokedAt, null, 'and revokes nothing');
  const confirmation = await client.get(`/keys/${id}/revoke`);
  t.equal(confirmation.status, 200);
  t.match(confirmation.page, `<h1>Revoke ${id}?</h1>`);
  t.match(confirmation.page, /cannot be undone/);
  t.match(
    confirmation.page,
    new RegExp(`<form method="post" action="/keys/${id}/revoke"[^]*name="confirm" value="revoke"[^]*</form>`),
    'its form, no script needed',
  );
  t.match(confirmation.page, '<a href="/keys">Cancel', 'and a way back');
  const done = await client.post(`/keys/${id}/revoke`, { csrf: ConsoleClient.csrfOf(confirmation.page), confirm: 'revoke' });
  t.equal(done.status, 303);
  t.match((await client.follow(done)).page, `Key ${id} revoked`);
  t.not((await svc.stores.keys.get(id))!.revokedAt, null, 'revoked');
  t.equal((await client.get(`/keys/${id}/revoke`)).status, 404, 'a revoked key has no confirmation page');
});
