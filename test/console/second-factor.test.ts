// The console's second factor over HTTP (src/console/second-factor-routes.ts, session-routes.ts), on a
// real service (SQLite; its own listener) whose clock the test moves: TOTP turned on (a fresh secret
// shown with its otpauth:// link and QR code; a wrong confirming code refused; recovery codes shown
// once; the account's other sessions signed out, the one that turned it on kept), sign-in in two steps
// (the password yields a pending sign-in that opens only the code form; the code opens a fresh
// session; wrong codes and replays refused and counted towards the lockout; recovery codes once each;
// the pending sign-in expires), turned off with the password and a current code, the account page's
// checks locked and limited as sign-in's (the session reaching the lock ended), the password asked
// before the second factor changes, a tenant's requirement set with the CLI
// (every page and change sends the account to set it up first), a password reset by invite that still
// asks for the code, the operator's reset-totp and list, and the audit lines (no secret or recovery code
// in any log).
import t, { type Test } from 'tap';

import { INVITE_TTL_MS, runConsoleUsersCommand } from '../../src/cli/console-users-command.js';
import { fromBase32, totpCode, totpStep } from '../../src/console/totp.js';
import { captureLogs, recordCanary } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { type ConsoleAnswer, ConsoleClient, newMember } from './console-client.js';

const PASSWORD = 'juniper-sphygmo-2024';
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
const csrfOf = async (client: ConsoleClient, path = '/account') => ConsoleClient.csrfOf((await client.get(path)).page);

/** A signed-in client of a new account of `tenant`. */
const member = (tenant: string, email: string): Promise<ConsoleClient> => newMember(svc, tenant, PASSWORD, { email, nowMs: clock().getTime() });

/** The code of the step the service's clock is in after moving it on one step: each call gives a code not used before. */
function nextCode(secret: Buffer): string {
  offsetMs += 30_000;
  return totpCode(secret, totpStep(clock().getTime()));
}

/** Turns TOTP on for a signed-in client: its secret and recovery codes. */
async function turnOn(t: Test, client: ConsoleClient): Promise<{ secret: Buffer; recoveryCodes: string[] }> {
  const started = await client.postFollow('/account/totp', { csrf: await csrfOf(client) });
  t.equal(started.status, 200, 'set-up started');
  const secret = fromBase32(/<code id="totp-secret">([^<]+)<\/code>/.exec(started.page)![1]);
  recordCanary('webhook_secret', /<code id="totp-secret">([^<]+)<\/code>/.exec(started.page)![1].replaceAll(' ', ''));
  const confirmed = await client.postFollow('/account/totp/confirm', { csrf: ConsoleClient.csrfOf(started.page), password: PASSWORD, code: nextCode(secret) });
  t.equal(confirmed.status, 200, 'turned on');
  const recoveryCodes = /<pre id="recovery-codes">([^<]+)<\/pre>/.exec(confirmed.page)![1].split('\n');
  for (const code of recoveryCodes) recordCanary('webhook_secret', code);
  return { secret, recoveryCodes };
}

/** The password step of a sign-in: its answer and the pending sign-in cookie it set (or null). */
async function passwordStep(email: string): Promise<{ answer: ConsoleAnswer; pending: string | null; setCookie: string }> {
  const answer = await new ConsoleClient(base()).post('/sign-in', { email, password: PASSWORD });
  const setCookie = answer.headers.get('set-cookie') ?? '';
  return { answer, pending: /svc_console_pending=([^;]*)/.exec(setCookie)?.[1] ?? null, setCookie };
}

/** A client holding only a pending sign-in's cookie (no session). */
function pendingClient(pending: string): ConsoleClient {
  return new ConsoleClient(base(), { cookie: `svc_console_pending=${pending}` });
}

t.test('turning TOTP on: the secret shown with its link and QR code; a wrong code refused; recovery codes shown once; audited', async (t) => {
  const client = await member('clinic-totp-on', 'gp@clinic.example');
  const off = await client.get('/account');
  t.equal(off.status, 200);
  t.match(off.page, /Two-step sign-in is <strong>off<\/strong>/);
  t.match(off.page, /<a href="\/account">Account<\/a>/, 'in the navigation');

  const started = await client.postFollow('/account/totp', { csrf: ConsoleClient.csrfOf(off.page) });
  t.equal(started.status, 200);
  const shown = /<code id="totp-secret">([^<]+)<\/code>/.exec(started.page)![1];
  recordCanary('webhook_secret', shown.replaceAll(' ', ''));
  t.match(shown, /^([A-Z2-7]{4} ){7}[A-Z2-7]{4}$/, '160 bits in base32, in groups of four');
  const secret = fromBase32(shown);
  const link = /<a href="(otpauth:\/\/totp\/[^"]+)">/.exec(started.page)![1].replaceAll('&amp;', '&');
  t.equal(new URL(link).searchParams.get('secret'), shown.replaceAll(' ', ''), 'the otpauth:// link carries it');
  t.match(started.page, /<svg class="qr" role="img" aria-label="QR code of the setup link"/, 'a QR code drawn by the console');
  t.notMatch(started.page, /\sstyle=|<script>|\son[a-z]+=/, 'no inline style, script or handler');
  t.equal(
    await svc.stores.consoleSecondFactors.totpEnabled((await svc.stores.consoleAccounts.signInRecord('gp@clinic.example'))!.id),
    false,
    'not yet in effect',
  );

  const csrf = ConsoleClient.csrfOf(started.page);
  const wrong = await client.post('/account/totp/confirm', { csrf, password: PASSWORD, code: totpCode(secret, totpStep(clock().getTime()) - 3) });
  t.equal(wrong.status, 422, 'a code of another step');
  t.match(wrong.page, /Not turned on/);
  t.match(wrong.page, new RegExp(shown), 'the same secret is shown again');
  const right = await client.postFollow('/account/totp/confirm', { csrf, password: PASSWORD, code: nextCode(secret) });
  t.equal(right.status, 200);
  t.match(right.page, /Two-step sign-in is <strong>on<\/strong>/);
  const codes = /<pre id="recovery-codes">([^<]+)<\/pre>/.exec(right.page)![1].split('\n');
  for (const code of codes) recordCanary('webhook_secret', code);
  t.equal(codes.length, 10, 'ten recovery codes');
  const again = await client.get('/account');
  t.match(again.page, /10 recovery codes left/);
  t.notMatch(again.page, codes[0], 'shown once');
  t.notMatch(again.page, /totp-secret/, 'nor the secret');
  t.equal((await client.post('/account/totp', { csrf })).status, 409, 'on already: no new secret');

  const audits = logs.lines().filter((l) => l.msg === 'console audit' && l.tenantId === 'clinic-totp-on');
  t.same(
    audits.map((l) => l.audit),
    ['password_set', 'totp_setup_started', 'totp_enabled'],
  );
  t.notMatch(logs.text(), shown.replaceAll(' ', ''), 'no secret in any log line');
  t.notOk(
    codes.some((c) => logs.text().includes(c)),
    'no recovery code in any log line',
  );
});

t.test("turning TOTP on signs the account's other sessions out, audited with how many; the one that turned it on stays", async (t) => {
  const client = await member('clinic-totp-others', 'ortho@clinic.example');
  const other = new ConsoleClient(base());
  const signIn = await other.post('/sign-in', { email: 'ortho@clinic.example', password: PASSWORD });
  t.equal(signIn.headers.get('location'), '/keys', 'a second session of the account (another browser)');
  t.equal((await other.get('/keys')).status, 200);
  const bystander = await member('clinic-totp-others', 'nurse-ortho@clinic.example');

  await turnOn(t, client);
  const refused = await other.get('/keys');
  t.equal(refused.status, 303, 'the other session is signed out');
  t.equal(refused.headers.get('location'), '/sign-in');
  t.match(refused.headers.get('set-cookie'), /^svc_console_session=;/, 'its cookie expired');
  t.equal((await client.get('/keys')).status, 200, 'the session that turned it on stays signed in');
  t.match((await client.get('/account')).page, /Two-step sign-in is <strong>on<\/strong>/);
  t.equal((await bystander.get('/keys')).status, 200, "another account's session stays");
  const audit = logs.lines().find((l) => l.msg === 'console audit' && l.tenantId === 'clinic-totp-others' && l.audit === 'totp_enabled');
  t.match(audit, { otherSessionsEnded: 1 });
  offsetMs += 61_000;
});

t.test('sign-in with TOTP: a pending sign-in opens only the code form; a wrong code and a replay refused; the code opens a fresh session', async (t) => {
  const setup = await member('clinic-totp-sign-in', 'nurse@clinic.example');
  const { secret } = await turnOn(t, setup);

  const first = await passwordStep('nurse@clinic.example');
  t.equal(first.answer.status, 303);
  t.equal(first.answer.headers.get('location'), '/sign-in/code');
  t.match(first.setCookie, /^svc_console_pending=[A-Za-z0-9_-]{43}; Path=\/sign-in; HttpOnly; SameSite=Strict; Max-Age=300/);
  t.notMatch(first.setCookie, /svc_console_session/, 'no session yet');
  const pending = pendingClient(first.pending!);
  t.equal((await pending.get('/sign-in/code')).status, 200, 'the code form');
  for (const path of ['/keys', '/account']) {
    const answer = await pending.get(path);
    t.equal(answer.status, 303, `${path}: not signed in`);
    t.equal(answer.headers.get('location'), '/sign-in');
  }
  const asSession = new ConsoleClient(base());
  asSession.cookie = first.pending;
  t.equal((await asSession.get('/keys')).status, 303, 'the pending token is no session token either');
  t.equal((await new ConsoleClient(base()).get('/sign-in/code')).status, 303, 'no pending sign-in: back to the password');

  const wrong = await pending.post('/sign-in/code', { code: totpCode(secret, totpStep(clock().getTime()) + 5) });
  t.equal(wrong.status, 401);
  t.match(wrong.page, /The code is not right, or was used already/);
  const code = nextCode(secret);
  const signed = await pending.post('/sign-in/code', { code });
  t.equal(signed.status, 303);
  t.equal(signed.headers.get('location'), '/keys');
  t.match(signed.headers.get('set-cookie'), /svc_console_session=[A-Za-z0-9_-]{43};/);
  t.match(signed.headers.get('set-cookie'), /svc_console_pending=; Path=\/sign-in; HttpOnly; SameSite=Strict; Max-Age=0/, 'the pending cookie is dropped');
  const session = /svc_console_session=([^;]*)/.exec(signed.headers.get('set-cookie')!)![1];
  t.not(session, first.pending, 'a fresh session token');
  const signedIn = new ConsoleClient(base());
  signedIn.cookie = session;
  t.equal((await signedIn.get('/keys')).status, 200, 'signed in');
  t.equal((await pending.post('/sign-in/code', { code: nextCode(secret) })).status, 303, 'the pending sign-in was used up');

  const second = await passwordStep('nurse@clinic.example');
  const replay = await pendingClient(second.pending!).post('/sign-in/code', { code });
  t.equal(replay.status, 401, 'the same code again, within its window: refused');
  t.ok(
    logs.lines().some((l) => l.audit === 'signed_in' && l.tenantId === 'clinic-totp-sign-in' && l.secondFactor === 'totp'),
    'audited as a sign-in with a second factor',
  );
  offsetMs += 61_000; // a fresh minute for the address limit
});

t.test('wrong codes count towards the lockout (the password does not clear them); recovery codes sign in once each', async (t) => {
  const setup = await member('clinic-totp-lockout', 'locum@clinic.example');
  const { secret, recoveryCodes } = await turnOn(t, setup);
  offsetMs += 61_000; // turning it on took one of this minute's attempts from the address
  const statuses: number[] = [];
  // The password is right each time; the failures are the codes', and they add up across pending sign-ins.
  for (let i = 0; i < 5; i++) {
    const { pending } = await passwordStep('locum@clinic.example');
    statuses.push((await pendingClient(pending!).post('/sign-in/code', { code: String(100000 + i) })).status);
  }
  t.same(statuses, [401, 401, 401, 401, 429], 'the fifth wrong code locks the account');
  offsetMs += 61_000; // ten attempts from this address in that minute: its limit
  const locked = await passwordStep('locum@clinic.example');
  t.equal(locked.answer.status, 429, 'locked: the password step too');
  t.match(locked.answer.page, /Too many failed attempts on this account: try again in 14 minutes/);
  offsetMs += 15 * 60_000 + 1_000;

  const { pending } = await passwordStep('locum@clinic.example');
  const byRecovery = await pendingClient(pending!).post('/sign-in/code', { code: recoveryCodes[0].toUpperCase() });
  t.equal(byRecovery.status, 303, 'a recovery code in place of a code (any case)');
  t.ok(logs.lines().some((l) => l.audit === 'signed_in' && l.tenantId === 'clinic-totp-lockout' && l.secondFactor === 'recovery_code'));
  const reused = await passwordStep('locum@clinic.example');
  t.equal((await pendingClient(reused.pending!).post('/sign-in/code', { code: recoveryCodes[0] })).status, 401, 'once');
  t.equal((await pendingClient(reused.pending!).post('/sign-in/code', { code: nextCode(secret) })).status, 303);

  const expiring = await passwordStep('locum@clinic.example');
  offsetMs += 5 * 60_000;
  const late = await pendingClient(expiring.pending!).post('/sign-in/code', { code: nextCode(secret) });
  t.equal(late.status, 303, 'after five minutes the pending sign-in is gone');
  t.equal(late.headers.get('location'), '/sign-in');
  offsetMs += 61_000;
});

t.test('turning TOTP off needs the password and a current code (a wrong one refused and counted); then the password alone signs in', async (t) => {
  const client = await member('clinic-totp-off', 'physio@clinic.example');
  const { secret } = await turnOn(t, client);
  const csrf = await csrfOf(client);
  const wrong = await client.post('/account/totp/disable', { csrf, password: PASSWORD, code: totpCode(secret, totpStep(clock().getTime()) + 5) });
  t.equal(wrong.status, 422);
  t.match(wrong.page, /Not turned off/);
  t.equal((await svc.stores.consoleAccounts.signInRecord('physio@clinic.example'))!.failedSignIns, 1, 'counted');
  const renewed = await client.postFollow('/account/recovery-codes', { csrf, password: PASSWORD, code: nextCode(secret) });
  t.equal(renewed.status, 200, 'new recovery codes with a current code');
  t.equal(/<pre id="recovery-codes">([^<]+)<\/pre>/.exec(renewed.page)![1].split('\n').length, 10);
  const off = await client.postFollow('/account/totp/disable', { csrf, password: PASSWORD, code: nextCode(secret) });
  t.equal(off.status, 200);
  t.match(off.page, /Two-step sign-in is <strong>off<\/strong>/);
  const { answer } = await passwordStep('physio@clinic.example');
  t.equal(answer.headers.get('location'), '/keys', 'the password alone');
  t.same(
    logs
      .lines()
      .filter((l) => l.msg === 'console audit' && l.tenantId === 'clinic-totp-off')
      .map((l) => l.audit),
    ['password_set', 'totp_setup_started', 'totp_enabled', 'second_factor_failed', 'recovery_codes_replaced', 'totp_disabled', 'signed_in'],
  );
  t.match(
    logs.lines().find((l) => l.audit === 'second_factor_failed' && l.tenantId === 'clinic-totp-off'),
    { level: 40, reason: 'code', address: /\S/ },
    'the wrong code: a warning with the reason and the address',
  );
});

t.test(
  'the account page checks codes as sign-in does: locked after 5 wrong ones, the session that reached the lock ended, the right code refused then',
  async (t) => {
    const thief = await member('clinic-totp-guess', 'guessed@clinic.example');
    const { secret, recoveryCodes } = await turnOn(t, thief);
    offsetMs += 61_000;
    const { pending } = await passwordStep('guessed@clinic.example');
    const signed = await pendingClient(pending!).post('/sign-in/code', { code: nextCode(secret) });
    const owner = new ConsoleClient(base());
    owner.cookie = /svc_console_session=([^;]*)/.exec(signed.headers.get('set-cookie')!)![1];
    offsetMs += 61_000;
    const csrf = await csrfOf(thief);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const path = i % 2 === 0 ? '/account/totp/disable' : '/account/recovery-codes';
      statuses.push((await thief.post(path, { csrf, password: PASSWORD, code: String(200000 + i) })).status);
    }
    t.same(statuses, [422, 422, 422, 422, 429], 'the fifth wrong code locks the account');
    t.equal((await thief.get('/keys')).status, 303, 'and the session that reached the lock is ended');
    const ownerCsrf = await csrfOf(owner);
    for (const path of ['/account/totp/disable', '/account/recovery-codes']) {
      const refused = await owner.post(path, { csrf: ownerCsrf, password: PASSWORD, code: nextCode(secret) });
      t.equal(refused.status, 429, `${path}: the right password and code wait while locked`);
      const wait = Number(refused.headers.get('retry-after'));
      t.ok(wait > 10 * 60 && wait <= 15 * 60, `with Retry-After (${wait} s)`);
      t.match(refused.page, /Too many failed attempts on this account/);
    }
    const userId = (await svc.stores.consoleAccounts.signInRecord('guessed@clinic.example'))!.id;
    t.equal(await svc.stores.consoleSecondFactors.totpEnabled(userId), true, 'still on');
    t.equal(await svc.stores.consoleSecondFactors.useRecoveryCode(userId, recoveryCodes[1], clock().getTime()), true, 'the recovery codes are the same');
    t.ok(
      logs.lines().some((l) => l.audit === 'account_locked' && l.userId === userId && l.level === 40 && l.sessionEnded === 1),
      'the lock is a warning',
    );
    t.ok(logs.lines().some((l) => l.audit === 'second_factor_refused' && l.userId === userId && l.reason === 'account_locked'));

    offsetMs += 15 * 60_000;
    const off = await owner.postFollow('/account/totp/disable', { csrf: ownerCsrf, password: PASSWORD, code: nextCode(secret) });
    t.equal(off.status, 200, 'after the lock the right code turns it off');
    offsetMs += 61_000;
  },
);

t.test('turning TOTP on, off or new recovery codes need the current password: refused without it, counted, other sessions kept', async (t) => {
  const client = await member('clinic-totp-password', 'anaesthesia@clinic.example');
  const other = new ConsoleClient(base());
  t.equal((await other.post('/sign-in', { email: 'anaesthesia@clinic.example', password: PASSWORD })).status, 303, 'another session of the account');
  const userId = (await svc.stores.consoleAccounts.signInRecord('anaesthesia@clinic.example'))!.id;
  const started = await client.postFollow('/account/totp', { csrf: await csrfOf(client) });
  t.match(started.page, /name="password" autocomplete="current-password"/, 'the form asks for it');
  const secret = fromBase32(/<code id="totp-secret">([^<]+)<\/code>/.exec(started.page)![1]);
  const csrf = ConsoleClient.csrfOf(started.page);
  for (const password of [undefined, 'not-my-password-1']) {
    const refused = await client.post('/account/totp/confirm', { csrf, code: nextCode(secret), ...(password === undefined ? {} : { password }) });
    t.equal(refused.status, 422, `confirm with ${password === undefined ? 'no' : 'a wrong'} password`);
    t.match(refused.page, /Not turned on: that is not your current password/);
  }
  t.equal(await svc.stores.consoleSecondFactors.totpEnabled(userId), false, 'not turned on');
  t.equal((await other.get('/keys')).status, 200, 'the other session is not signed out');
  t.equal((await svc.stores.consoleAccounts.signInRecord('anaesthesia@clinic.example'))!.failedSignIns, 2, 'each counted');
  t.equal((await client.postFollow('/account/totp/confirm', { csrf, password: PASSWORD, code: nextCode(secret) })).status, 200, 'with it: on');
  for (const path of ['/account/totp/disable', '/account/recovery-codes']) {
    const refused = await client.post(path, { csrf, code: nextCode(secret) });
    t.equal(refused.status, 422, `${path} with the right code but no password`);
    t.match(refused.page, /that is not your current password/);
  }
  t.equal(await svc.stores.consoleSecondFactors.totpEnabled(userId), true, 'still on');
  t.equal(await svc.stores.consoleSecondFactors.recoveryCodesLeft(userId), 10);
  offsetMs += 61_000;
});

t.test('a tenant that requires TOTP (the CLI): every page and change sends an account without it to set it up; it cannot be turned off', async (t) => {
  const client = await member('clinic-totp-required', 'cardio@clinic.example');
  let printed = '';
  const saved = process.env.SVC_DATA_DIR;
  process.env.SVC_DATA_DIR = svc.dataDir;
  t.teardown(() => {
    process.env.SVC_DATA_DIR = saved;
  });
  await runConsoleUsersCommand(['require-totp', '--tenant', 'clinic-totp-required', '--json'], { write: (s: string) => (printed += s) });
  t.same(JSON.parse(printed), { tenant: 'clinic-totp-required', totp_required: true, accounts: 1, accounts_with_totp: 0 });

  const csrf = await csrfOf(client);
  const page = await client.get('/keys');
  t.equal(page.status, 303, 'a page: sent away');
  t.equal(page.headers.get('location'), '/account');
  const change = await client.post('/keys', { csrf });
  t.equal(change.status, 303, 'a change too');
  t.equal(change.headers.get('location'), '/account');
  t.equal((await svc.stores.keys.list('clinic-totp-required')).length, 0, 'no key was made');
  const account = await client.get('/account');
  t.equal(account.status, 200);
  t.match(account.page, /clinic-totp-required requires a second factor/);

  const fresh = await passwordStep('cardio@clinic.example');
  t.equal(fresh.answer.status, 303, 'the password signs in');
  const newcomer = new ConsoleClient(base());
  newcomer.cookie = /svc_console_session=([^;]*)/.exec(fresh.setCookie)![1];
  t.equal((await newcomer.get('/keys')).headers.get('location'), '/account', 'and is sent to set it up');

  const { secret } = await turnOn(t, client);
  t.equal((await client.get('/keys')).status, 200, 'on: every page opens');
  t.equal((await client.post('/keys', { csrf })).status, 303);
  const kept = await client.post('/account/totp/disable', { csrf, password: PASSWORD, code: nextCode(secret) });
  t.equal(kept.status, 409, 'required: it stays on');
  t.match(kept.page, /requires a second factor: it stays on/);

  printed = '';
  await runConsoleUsersCommand(['require-totp', '--tenant', 'clinic-totp-required', '--off'], { write: (s: string) => (printed += s) });
  t.match(printed, /no longer requires TOTP \(1 of its 1 console account has it on\)/);
  t.equal(
    (await client.postFollow('/account/totp/disable', { csrf, password: PASSWORD, code: nextCode(secret) })).status,
    200,
    'no longer required: it may go',
  );
  t.equal((await client.get('/keys')).status, 200);
  offsetMs += 61_000;
});

t.test("a password reset by invite still asks for the code; the operator's reset-totp turns it off; list shows who has it", async (t) => {
  const client = await member('clinic-totp-reset', 'radiology@clinic.example');
  const { secret } = await turnOn(t, client);
  const { token } = await svc.stores.consoleAccounts.createInvite('clinic-totp-reset', 'radiology@clinic.example', clock().getTime(), INVITE_TTL_MS);
  const NEW_PASSWORD = 'basalt-catheter-7788';
  recordCanary('filename', NEW_PASSWORD);
  const reset = await new ConsoleClient(base()).post(`/invite/${token}`, { password: NEW_PASSWORD, repeat: NEW_PASSWORD });
  t.equal(reset.status, 303);
  t.equal(reset.headers.get('location'), '/sign-in/code', 'the invite link alone opens no session');
  t.notMatch(reset.headers.get('set-cookie'), /svc_console_session/);
  const pending = /svc_console_pending=([^;]*)/.exec(reset.headers.get('set-cookie')!)![1];
  t.equal((await pendingClient(pending).post('/sign-in/code', { code: nextCode(secret) })).status, 303, 'the code does');

  let printed = '';
  const saved = process.env.SVC_DATA_DIR;
  process.env.SVC_DATA_DIR = svc.dataDir;
  t.teardown(() => {
    process.env.SVC_DATA_DIR = saved;
  });
  const write = { write: (text: string) => (printed += text) };
  await runConsoleUsersCommand(['list', '--tenant', 'clinic-totp-reset', '--json'], write);
  t.match(JSON.parse(printed), [{ email: 'radiology@clinic.example', totp: true }]);
  printed = '';
  await runConsoleUsersCommand(['reset-totp', '--email', 'Radiology@clinic.example'], write);
  t.match(printed, /TOTP of radiology@clinic\.example \(clinic-totp-reset\) is off/);
  const signIn = await new ConsoleClient(base()).post('/sign-in', { email: 'radiology@clinic.example', password: NEW_PASSWORD });
  t.equal(signIn.headers.get('location'), '/keys', 'the password alone');
  await t.rejects(runConsoleUsersCommand(['reset-totp', '--email', 'nobody@clinic.example'], write), /no console account has the email/);
  offsetMs += 61_000;
});
