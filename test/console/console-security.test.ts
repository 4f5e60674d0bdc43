// The console's safety rules on every route it has (issue 32's review), walking the routes the app
// registers (console-routes.ts) so that a page or form added later is covered without being named:
// every GET answer (signed in and out) carries the CSP and the other security headers; every POST
// is refused without the session's CSRF token, with a wrong one, and from another origin or site;
// every id in a path is answered as unknown for another tenant's key; every POST that checks the
// user's password or code (found by posting wrong ones and seeing them counted) is refused once the
// account is locked or the address limit spent, even with the right ones; no POST changes the second
// factor in effect without the current password. And sessions end when idle or old (the service's
// injectable clock), and the sweeper deletes what can open nothing any more.
import t, { type Test } from 'tap';

import { INVITE_TTL_MS } from '../../src/cli/console-users-command.js';
import { DEFAULT_CONSOLE_LIMITS } from '../../src/console/console-context.js';
import { hashPassword } from '../../src/console/password-hash.js';
import { PENDING_SIGN_IN_MS } from '../../src/console/pending-sign-in.js';
import { newTotpSecret, totpCode, totpStep } from '../../src/console/totp.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { type ConsoleAnswer, ConsoleClient, newMember } from './console-client.js';
import { type ConsoleRoute, consoleRoutes } from './console-routes.js';

const PASSWORD = 'amber-stethoscope-42';
/** Posts that come before a session (no CSRF token to carry): only the origin check applies. */
const SIGNED_OUT_POSTS = new Set(['/sign-in', '/sign-in/code', '/invite/:token']);
const { idleMs, absoluteMs, lockAfter, lockMs, signInsPerMinute } = DEFAULT_CONSOLE_LIMITS;

let svc: TestService;
let routes: ConsoleRoute[];
let passwordHash: string;
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);

t.before(async () => {
  svc = await startTestService({}, { clock });
  routes = await consoleRoutes();
  passwordHash = await hashPassword(PASSWORD);
});
t.teardown(() => svc?.close());

const base = () => svc.service.consoleUrl!;

async function invite(tenant: string, email: string): Promise<string> {
  return (await svc.stores.consoleAccounts.createInvite(tenant, email, clock().getTime(), INVITE_TTL_MS)).token;
}

const member = (tenant: string, email?: string): Promise<ConsoleClient> => newMember(svc, tenant, PASSWORD, { email, nowMs: clock().getTime() });

/** A path of `route` with its parameters filled in. */
function pathOf(route: ConsoleRoute, params: Record<string, string>): string {
  return route.url.replace(/:(\w+)/g, (_, name: string) => params[name] ?? `unknown-${name}`);
}

/** A multipart post (the playground's form) with the client's session cookie and the console's origin. */
async function postMultipart(client: ConsoleClient, path: string, fields: Record<string, string>, headers: Record<string, string>): Promise<number> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(64)], { type: 'audio/wav' }), 'a.wav');
  const res = await fetch(`${base()}${path}`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
    headers: { origin: base(), ...(client.cookie ? { cookie: `svc_console_session=${client.cookie}` } : {}), ...headers },
  });
  await res.arrayBuffer();
  return res.status;
}

/** Whether a post is refused with 403 in the encoding its route reads (a form; else multipart). */
async function refused(t: Test, client: ConsoleClient, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const what = `POST ${path} ${JSON.stringify(fields).replace(/"csrf":"[^"]+"/, '"csrf":…')} ${JSON.stringify(headers)}`;
  const form = await client.post(path, fields, headers);
  if (form.status === 403) return t.pass(`${what}: refused`);
  t.equal(form.status, 415, `${what}: a form is not what the route reads`);
  t.equal(await postMultipart(client, path, fields, headers), 403, `${what}, as multipart: refused`);
}

function checkSecurityHeaders(t: Test, what: string, answer: ConsoleAnswer) {
  const csp = answer.headers.get('content-security-policy') ?? '';
  for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
    t.ok(csp.split('; ').includes(directive), `${what}: CSP ${directive}`);
  }
  t.notMatch(csp, /unsafe-|\*/, `${what}: no unsafe- source, no wildcard`);
  t.equal(answer.headers.get('x-frame-options'), 'DENY', `${what}: not framed`);
  t.equal(answer.headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  t.equal(answer.headers.get('cache-control'), 'no-store', `${what}: not cached`);
  t.equal(answer.headers.get('referrer-policy'), 'same-origin', `${what}: referrer`);
  t.equal(answer.headers.get('cross-origin-opener-policy'), 'same-origin', `${what}: COOP`);
}

t.test('the walk sees the registered routes', async (t) => {
  const listed = routes.map((r) => `${r.method} ${r.url}`);
  for (const known of ['GET /keys', 'GET /assets/console.css', 'GET /invite/:token', 'POST /keys/:id/revoke', 'POST /playground', 'POST /sign-out']) {
    t.ok(listed.includes(known), known);
  }
  t.ok(routes.filter((r) => r.method === 'GET').length >= 15 && routes.filter((r) => r.method === 'POST').length >= 15, `${routes.length} routes`);
});

t.test('every GET route, signed in and signed out, answers with the CSP and the other security headers', async (t) => {
  const signedIn = await member('clinic-headers');
  // A key of the tenant's: a page naming a key (its revoke confirmation) opens for it.
  const key = await svc.createKey({ tenant: 'clinic-headers' });
  const params = { token: await invite('clinic-headers', 'invitee@clinic.example'), id: key.id, keyId: key.id };
  for (const route of routes.filter((r) => r.method === 'GET')) {
    const path = pathOf(route, params);
    const answer = await signedIn.get(path);
    // An answer's page exists only after a transcription of this session's (404 otherwise, as asked here).
    t.ok(answer.status < 400 || route.url === '/sign-in/code' || route.url === '/playground/results/:id', `${path} signed in: ${answer.status}`);
    checkSecurityHeaders(t, `${path} signed in`, answer);
    checkSecurityHeaders(t, `${path} signed out`, await new ConsoleClient(base()).get(path));
  }
  for (const path of ['/no-such-page', '/keys/x/y', '/assets/missing.js']) checkSecurityHeaders(t, path, await signedIn.get(path));
});

t.test('every POST route refuses a change without the CSRF token, with a wrong one, and from another origin or site', async (t) => {
  const client = await member('clinic-posts');
  const key = await svc.createKey({ tenant: 'clinic-posts' });
  const csrf = ConsoleClient.csrfOf((await client.get('/keys')).page);
  const params = { id: key.id, keyId: key.id, token: await invite('clinic-posts', 'invitee@clinic.example') };
  const posts = routes.filter((r) => r.method === 'POST');
  for (const route of posts) {
    const path = pathOf(route, params);
    const fields = { csrf, key_id: key.id, email: 'clinic-posts@clinic.example', password: PASSWORD, repeat: PASSWORD };
    if (!SIGNED_OUT_POSTS.has(route.url)) {
      const { csrf: _, ...withoutToken } = fields;
      await refused(t, client, path, withoutToken);
      await refused(t, client, path, { ...fields, csrf: `${csrf.slice(1)}x` });
      // As long as the token in characters, not in bytes: refused as a wrong token is, not a failure.
      await refused(t, client, path, { ...fields, csrf: 'é'.repeat(csrf.length) });
    }
    await refused(t, client, path, fields, { origin: 'https://evil.example' });
    await refused(t, client, path, fields, { origin: 'null' });
    await refused(t, client, path, fields, { 'sec-fetch-site': 'cross-site' });
    await refused(t, client, path, fields, { 'sec-fetch-site': 'same-site' });
  }
  t.equal((await client.get('/keys')).status, 200, 'still signed in: no sign-out went through');
  t.same(
    (await svc.stores.keys.list('clinic-posts')).map((k) => [k.id, k.revokedAt]),
    [[key.id, null]],
    'no key made, revoked or rotated',
  );
  t.equal(await svc.stores.webhookSecrets.list(key.id, clock().getTime()).then((s) => s.length), 0, 'no webhook secret made');
  t.ok(await svc.stores.consoleAccounts.findInvite(params.token, clock().getTime()), 'the invite is unused');
});

t.test('every POST route takes forms only: a JSON or text body is refused (415), never read as a form', async (t) => {
  const client = await member('clinic-bodies');
  const csrf = ConsoleClient.csrfOf((await client.get('/keys')).page);
  const params = { token: await invite('clinic-bodies', 'invitee@clinic.example') };
  for (const route of routes.filter((r) => r.method === 'POST')) {
    const path = pathOf(route, params);
    for (const [type, body] of [
      ['application/json', JSON.stringify({ csrf, email: 1, password: { a: 1 }, code: [1], key_id: null })],
      ['text/plain', `csrf=${csrf}`],
    ]) {
      const res = await fetch(`${base()}${path}`, {
        method: 'POST',
        body,
        redirect: 'manual',
        headers: { 'content-type': type, origin: base(), cookie: `svc_console_session=${client.cookie}` },
      });
      t.equal(res.status, 415, `POST ${path} as ${type}`);
      t.equal(res.headers.get('x-frame-options'), 'DENY', 'with the security headers');
      await res.arrayBuffer();
    }
  }
  t.equal((await client.get('/keys')).status, 200, 'still signed in');
});

t.test("every POST route naming a key answers another tenant's key as unknown, and leaves it as it was", async (t) => {
  const client = await member('clinic-tamper');
  const theirs = await svc.createKey({ tenant: 'clinic-tamper-elsewhere' });
  const before = await svc.stores.keys.get(theirs.id);
  const csrf = ConsoleClient.csrfOf((await client.get('/keys')).page);
  const naming = routes.filter((r) => r.method === 'POST' && /:(id|keyId)\b/.test(r.url));
  t.ok(naming.length >= 6, naming.map((r) => r.url).join(' '));
  for (const route of naming) {
    const path = pathOf(route, { id: theirs.id, keyId: theirs.id });
    const answer = await client.post(path, { csrf, overlap_seconds: '3600', retention_hours: '1', default_language: '' });
    t.equal(answer.status, 404, `POST ${path}: unknown`);
  }
  t.same(await svc.stores.keys.get(theirs.id), before, 'their key is untouched');
  t.same(await svc.stores.keys.list('clinic-tamper-elsewhere').then((keys) => keys.length), 1, 'and not rotated');
  t.equal((await svc.stores.webhookSecrets.list(theirs.id, clock().getTime())).length, 0, 'no webhook secret made for it');
});

t.test("no POST route gives a tenant's key terms looser than the operator's: pause, plan, entitlements, rate, overrides, credit", async (t) => {
  const tenant = 'clinic-terms';
  const model = await svc.createKey({ tenant, plan: 'builder', entitlements: [], rateLimitPerMinute: 5 });
  await svc.stores.keys.update(model.id, { billingState: 'paused' });
  const overrides = { batchIncludedMs: 1_000, spendCapMicros: 2_000 };
  const credit = 1_000_000;
  await svc.stores.billing.updateKey(model.id, { overrides, addCreditMicros: credit });
  const client = await member(tenant);
  const posts = routes.filter((r) => r.method === 'POST' && !SIGNED_OUT_POSTS.has(r.url) && !r.url.includes('sign-out'));
  const held = async (what: string) => {
    const keys = await svc.stores.keys.list(tenant);
    const billing = await Promise.all(keys.map((k) => svc.stores.billing.keyBilling(k.id)));
    t.ok(
      keys.every((k) => k.billingState === 'paused' && k.plan === 'builder' && k.entitlements.length === 0 && k.rateLimitPerMinute === 5),
      `${what}: every key of the tenant (${keys.length}) is paused, builder, without entitlements, 5 a minute`,
    );
    t.ok(
      billing.every((b) => JSON.stringify(b.overrides) === JSON.stringify(overrides)),
      `${what}: every key keeps the key-level overrides`,
    );
    const granted = billing.reduce((sum, b) => sum + (b.creditGrantedMicros ?? 0), 0);
    t.ok(
      billing.every((b) => b.creditGrantedMicros !== null) && granted <= credit,
      `${what}: the credit granted in all is at most the operator's (${granted})`,
    );
  };
  // Twice: with the model usable, then with every key revoked (a tenant must not shed terms by revoking).
  for (const round of ['usable', 'all revoked']) {
    if (round === 'all revoked') for (const key of await svc.stores.keys.list(tenant)) await svc.stores.keys.revoke(key.id);
    for (const route of posts) {
      const usable = (await svc.stores.keys.list(tenant)).filter((k) => k.revokedAt === null && k.revokeAt === null).at(-1);
      const csrf = ConsoleClient.csrfOf((await client.get('/keys')).page);
      const path = pathOf(route, { id: usable?.id ?? model.id, keyId: usable?.id ?? model.id });
      await client.post(path, { csrf, overlap_seconds: '0', retention_hours: '1', default_language: '' });
      await held(`${round}, after POST ${path}`);
    }
  }
  t.ok((await svc.stores.keys.list(tenant)).length >= 3, 'the walk made keys (created and rotated)');
});

t.test('a session ends after idleMs unused; each use moves the limit; and absoluteMs after sign-in, however used', async (t) => {
  const client = await member('clinic-idle');
  offsetMs += idleMs - 60_000;
  t.equal((await client.get('/keys')).status, 200, 'used a minute before the idle limit');
  offsetMs += idleMs - 60_000;
  t.equal((await client.get('/keys')).status, 200, 'which moved the limit');
  offsetMs += idleMs;
  const ended = await client.get('/keys');
  t.equal(ended.status, 303, 'unused for idleMs: signed out');
  t.equal(ended.headers.get('location'), '/sign-in');
  t.match(ended.headers.get('set-cookie'), /svc_console_session=;.*Max-Age=0/, 'and the cookie is expired');

  const busy = await member('clinic-absolute');
  const signedInAt = offsetMs;
  while (offsetMs + idleMs / 2 < signedInAt + absoluteMs) {
    offsetMs += idleMs / 2;
    if ((await busy.get('/keys')).status !== 200) break;
  }
  t.equal((await busy.get('/keys')).status, 200, `in use until ${(offsetMs - signedInAt) / 3_600_000} h`);
  offsetMs = signedInAt + absoluteMs;
  t.equal((await busy.get('/keys')).status, 303, 'absoluteMs after sign-in: signed out');
});

t.test('the sweeper deletes expired invites, ended sessions, expired pending sign-ins and client secrets; keeps the rest', async (t) => {
  const accounts = svc.stores.consoleAccounts;
  const start = clock().getTime();
  const used = await invite('clinic-sweep', 'used@clinic.example');
  const client = new ConsoleClient(base());
  t.equal((await client.post(`/invite/${used}`, { password: PASSWORD, repeat: PASSWORD })).status, 303);
  const expiring = await accounts.createInvite('clinic-sweep', 'late@clinic.example', start, 60_000);
  const user = (await accounts.signInRecord('used@clinic.example'))!;
  const pending = await svc.stores.consoleSecondFactors.createPendingSignIn(user.id, start, PENDING_SIGN_IN_MS);
  const key = await svc.createKey({ tenant: 'clinic-sweep' });
  const secret = await svc.stores.clientSecrets.mint(key.id, start, start + 60_000);

  offsetMs += idleMs + 1_000;
  const unused = await invite('clinic-sweep', 'new@clinic.example');
  const live = await member('clinic-sweep', 'live@clinic.example');
  await svc.service.sweepNow();
  // Asked as of the start, each would still open: gone, they were deleted.
  t.equal(await accounts.findInvite(expiring.token, start), null, 'the expired invite is deleted');
  t.equal(await svc.stores.consoleSecondFactors.pendingSignIn(pending, start), null, 'the expired pending sign-in');
  t.equal(await svc.stores.clientSecrets.claim(secret, start), null, 'the expired client secret');
  t.equal(await accounts.session(client.cookie ?? '', start + 1_000, DEFAULT_CONSOLE_LIMITS), null, 'the idle session');
  t.ok(await accounts.findInvite(unused, clock().getTime()), 'an unused, unexpired invite stays');
  t.equal((await live.get('/keys')).status, 200, 'a live session goes on');
});

/** Where an account's second factor stands: none, a secret waiting for its code, or one in effect. */
type FactorState = 'off' | 'setup' | 'on';
const FACTOR_STATES: readonly FactorState[] = ['off', 'setup', 'on'];

/** A fresh signed-in account in `state`, made through the stores (no sign-in: the address limit is the checks' own). */
interface WalkAccount {
  client: ConsoleClient;
  csrf: string;
  userId: string;
  secret: Buffer | null;
  recoveryCodes: string[];
}

let walkAccounts = 0;
async function accountIn(state: FactorState): Promise<WalkAccount> {
  const accounts = svc.stores.consoleAccounts;
  const factors = svc.stores.consoleSecondFactors;
  const now = clock().getTime();
  const { token } = await accounts.createInvite('clinic-walk', `walk-${++walkAccounts}@clinic.example`, now, INVITE_TTL_MS);
  const user = (await accounts.acceptInvite(token, passwordHash, now))!;
  const session = await accounts.createSession(user.id, now);
  const client = new ConsoleClient(base());
  client.cookie = session.token;
  const secret = state === 'off' ? null : newTotpSecret();
  let recoveryCodes: string[] = [];
  if (secret) await factors.beginTotp(user.id, secret, now);
  if (state === 'on') {
    // Confirmed by a code of an earlier step: the current one is still unused.
    await factors.confirmTotp(user.id, totpStep(now) - 2, now);
    recoveryCodes = await factors.replaceRecoveryCodes(user.id, 10, now);
  }
  return { client, csrf: session.csrfToken, userId: user.id, secret, recoveryCodes };
}

/** A code the account's secret does not show now (a step far off), or any six digits without one. */
const wrongCode = (account: WalkAccount) => (account.secret ? totpCode(account.secret, totpStep(clock().getTime()) + 7) : '000000');
const rightCode = (account: WalkAccount) => (account.secret ? totpCode(account.secret, totpStep(clock().getTime())) : '000000');

/** Every field any console form sends, with the password and code given. */
function walkFields(account: WalkAccount, password: string, code: string): Record<string, string> {
  return { csrf: account.csrf, password, code, repeat: password, key_id: 'key_unknown', overlap_seconds: '3600', retention_hours: '1', default_language: '' };
}

/**
 * The second factor in effect, read after a post (it spends a recovery code: the account is done
 * with): whether TOTP is on and with which secret, and whether a recovery code of before still works.
 */
async function factorInEffect(account: WalkAccount) {
  const factors = svc.stores.consoleSecondFactors;
  const enrolment = await factors.totp(account.userId);
  const on = enrolment?.confirmedAtMs != null;
  const recoveryCode = account.recoveryCodes.length ? await factors.useRecoveryCode(account.userId, account.recoveryCodes[0], clock().getTime()) : null;
  return { on, secret: on ? enrolment.secret.toString('hex') : null, recoveryCode };
}

const factorAsMade = (state: FactorState, account: WalkAccount) => ({
  on: state === 'on',
  secret: state === 'on' ? account.secret!.toString('hex') : null,
  recoveryCode: state === 'on' ? true : null,
});

/** The signed-in POST routes with their paths: the ones that come before a session are sign-in's own. */
const signedInPosts = () =>
  routes
    .filter((r) => r.method === 'POST' && !SIGNED_OUT_POSTS.has(r.url))
    .map((r) => ({ url: r.url, path: pathOf(r, { id: 'key_unknown', keyId: 'key_unknown' }) }));

/**
 * The (route, state) pairs that check the user's own password or code: posted a wrong password and a
 * wrong code, the account's failures went up. Each on a fresh account, a fresh minute for the address.
 */
async function credentialChecks(): Promise<Array<{ url: string; path: string; state: FactorState }>> {
  const found = [];
  for (const state of FACTOR_STATES) {
    for (const route of signedInPosts()) {
      offsetMs += 61_000;
      const account = await accountIn(state);
      await account.client.post(route.path, walkFields(account, 'not-the-password-9', wrongCode(account)));
      const record = await svc.stores.consoleAccounts.signInRecord(`walk-${walkAccounts}@clinic.example`);
      if (record!.failedSignIns > 0) found.push({ ...route, state });
    }
  }
  return found;
}

t.test(
  'every POST checking the password or a code counts wrong ones, and is refused (429) once the account is locked ' +
    'or the address limit spent, even with the right ones',
  async (t) => {
    const checks = await credentialChecks();
    const named = checks.map((c) => `${c.url} (${c.state})`);
    for (const known of ['/account/totp/confirm (setup)', '/account/recovery-codes (on)', '/account/totp/disable (on)'])
      t.ok(named.includes(known), `found: ${known}`);

    // Every form of the account page that asks for a password or a code posts to a route that counts wrong ones.
    for (const state of FACTOR_STATES) {
      const account = await accountIn(state);
      const page = (await account.client.get('/account')).page;
      for (const [, action, form] of page.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)) {
        if (/name="(code|password)"/.test(form)) t.ok(named.includes(`${action} (${state})`), `the ${state} page's form to ${action} counts wrong ones`);
      }
    }

    for (const check of checks) {
      const what = `POST ${check.url} (${check.state})`;
      offsetMs += 61_000;
      const locked = await accountIn(check.state);
      for (let i = 0; i < lockAfter; i++) await svc.stores.consoleAccounts.recordFailedSignIn(locked.userId, clock().getTime(), lockAfter, lockMs);
      const refusedLocked = await locked.client.post(check.path, walkFields(locked, PASSWORD, rightCode(locked)));
      t.equal(refusedLocked.status, 429, `${what}, the account locked: refused with the right password and code`);
      t.ok(Number(refusedLocked.headers.get('retry-after')) > 0, `${what}: Retry-After`);
      t.same(await factorInEffect(locked), factorAsMade(check.state, locked), `${what}: the second factor is as it was`);

      offsetMs += 61_000;
      const limited = await accountIn(check.state);
      for (let i = 0; i < signInsPerMinute; i++) await svc.stores.consoleAccounts.countSignInAttempt('127.0.0.1', clock().getTime());
      const refusedLimited = await limited.client.post(check.path, walkFields(limited, PASSWORD, rightCode(limited)));
      t.equal(refusedLimited.status, 429, `${what}, the address limit spent: refused with the right password and code`);
      t.ok(Number(refusedLimited.headers.get('retry-after')) > 0, `${what}: Retry-After`);
      t.same(await factorInEffect(limited), factorAsMade(check.state, limited), `${what}: the second factor is as it was`);
    }
    offsetMs += 61_000;
  },
);

t.test('no POST turns the second factor on or off, or replaces the recovery codes, without the current password', async (t) => {
  const changing: string[] = [];
  for (const state of FACTOR_STATES) {
    for (const route of signedInPosts()) {
      const what = `POST ${route.url} (${state})`;
      for (const password of ['', 'not-the-password-9']) {
        offsetMs += 61_000;
        const account = await accountIn(state);
        await account.client.post(route.path, walkFields(account, password, rightCode(account)));
        t.same(await factorInEffect(account), factorAsMade(state, account), `${what}, password ${JSON.stringify(password)}: nothing changed`);
      }
      // With the password, the routes that do change it: the check above is not vacuous.
      offsetMs += 61_000;
      const account = await accountIn(state);
      await account.client.post(route.path, walkFields(account, PASSWORD, rightCode(account)));
      if (JSON.stringify(await factorInEffect(account)) !== JSON.stringify(factorAsMade(state, account))) changing.push(`${route.url} (${state})`);
    }
  }
  t.same(
    changing.sort(),
    ['/account/recovery-codes (on)', '/account/totp/confirm (setup)', '/account/totp/disable (on)'],
    'with the password they do change it',
  );
  offsetMs += 61_000;
});
