// The ConsoleAccountStore contract, run against every implementation (test/store/console-account-store.test.ts):
// invites (one-time, expiring, replaced, refused for another tenant's email), accounts and resets by
// invite, sign-in failures and lockout, sessions with their idle and absolute limits, an account's other
// sessions ended (one kept), racing uses of one invite from two connections, no token kept in clear,
// sign-in attempts counted per address across connections, wrong passwords locking only their (email
// subject, address) pair, and the sweep of what can open nothing any more. Each case gets a fresh, empty store.
import { createHash } from 'node:crypto';

import type { Test } from 'tap';

import { ConsoleAccountError, type ConsoleAccountStore, SIGN_IN_WINDOW_MS } from '../../../src/store/console-account-store.js';
import { failureOf, refuses } from './refusal.js';

export type ConsoleTable = 'console_users' | 'console_invites' | 'console_sessions' | 'console_sign_in_attempts' | 'console_password_failures';

export interface ConsoleAccountStoreHarness {
  store: ConsoleAccountStore;
  /** Another store on the same database through its own connection(s), as another process would have. */
  another(): Promise<ConsoleAccountStore>;
  /** Every row of `table` as stored (column name -> value), to check what is at rest. */
  rawRows(table: ConsoleTable): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

export type MakeConsoleAccountStore = (t: Test) => Promise<ConsoleAccountStoreHarness>;

const T0 = Date.parse('2030-01-01T00:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const MINUTE = 60 * 1000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const USER_ID = /^cu_[0-9A-Za-z]{16}$/;
const LIMITS = { idleMs: 30 * MINUTE, absoluteMs: 12 * 60 * MINUTE };
const sha256 = (token: string) => createHash('sha256').update(token).digest();

export function consoleAccountStoreContract(t: Test, name: string, make: MakeConsoleAccountStore): void {
  const open = async (t: Test): Promise<ConsoleAccountStoreHarness> => {
    const harness = await make(t);
    t.teardown(() => harness.close());
    return harness;
  };
  const refused = (t: Test, call: () => Promise<unknown>, kind: 'email_taken' | 'invalid_email', what: string) =>
    refuses(t, call, ConsoleAccountError, { kind }, `${kind}: ${what}`);
  /** An account made the way the console makes one: invited, then accepted. */
  const account = async (store: ConsoleAccountStore, tenant: string, email: string, nowMs = T0, passwordHash = `hash-of-${email}`) => {
    const { token } = await store.createInvite(tenant, email, nowMs, DAY);
    return (await store.acceptInvite(token, passwordHash, nowMs))!;
  };

  t.test(`${name}: ConsoleAccountStore contract`, async (t) => {
    t.test('createInvite: a one-time token, valid for its ttl; the email trimmed and lower-cased', async (t) => {
      const { store } = await open(t);
      const invite = await store.createInvite('clinic-a', '  Dr.Who@Clinic.EXAMPLE ', T0, DAY);
      t.match(invite.token, TOKEN, '32 random bytes, base64url');
      t.equal(invite.expiresAtMs, T0 + DAY);
      t.same(await store.findInvite(invite.token, T0), { tenant: 'clinic-a', email: 'dr.who@clinic.example', expiresAtMs: T0 + DAY });
      t.same(
        await store.findInvite(invite.token, T0 + DAY - 1),
        { tenant: 'clinic-a', email: 'dr.who@clinic.example', expiresAtMs: T0 + DAY },
        'until its last ms',
      );
      t.equal(await store.findInvite(invite.token, T0 + DAY), null, 'expired at expiresAtMs');
      const other = await store.createInvite('clinic-a', 'nurse@clinic.example', T0, DAY);
      t.not(other.token, invite.token);
      t.equal((await store.findInvite(other.token, T0))?.email, 'nurse@clinic.example');
      const unknown = 'A'.repeat(43);
      for (const token of [unknown, '', 'short', `${invite.token}x`, invite.token.slice(1), ` ${invite.token}`, undefined as unknown as string]) {
        t.equal(await store.findInvite(token, T0), null, `no invite for ${JSON.stringify(token)}`);
        t.equal(await store.acceptInvite(token, 'h', T0), null, `nothing accepted with ${JSON.stringify(token)}`);
      }
    });

    t.test('invalid emails are refused (invalid_email), nothing stored; signInRecord finds no account for them', async (t) => {
      const { store, rawRows } = await open(t);
      const invalid = [
        '',
        '   ',
        'no-at-sign',
        'two@@clinic.example',
        'a@b@clinic.example',
        '@clinic.example',
        'someone@',
        'with space@clinic.example',
        'tab\t@clinic.example',
        'new\nline@clinic.example',
        'nul\u0000@clinic.example',
        'bidi\u202e@clinic.example',
        `${'x'.repeat(244)}@clinic.com`,
        undefined as unknown as string,
      ];
      for (const email of invalid) {
        await refused(t, () => store.createInvite('clinic-a', email, T0, DAY), 'invalid_email', JSON.stringify(email?.slice(0, 24)));
        t.equal(await store.signInRecord(email), null, `no account for ${JSON.stringify(email?.slice(0, 24))}`);
      }
      t.same(await rawRows('console_invites'), []);
      const longest = `${'x'.repeat(243)}@clinic.com`;
      t.equal(longest.length, 254);
      await store.createInvite('clinic-a', longest, T0, DAY);
      t.equal((await rawRows('console_invites')).length, 1, '254 characters are accepted');
    });

    t.test('acceptInvite: creates the account once; the invite is spent', async (t) => {
      const { store } = await open(t);
      const { token } = await store.createInvite('clinic-a', 'Doc@Clinic.Example', T0, DAY);
      const user = await store.acceptInvite(token, 'scrypt$first', T0 + 5);
      t.match(user, { tenant: 'clinic-a', email: 'doc@clinic.example', createdAtMs: T0 + 5 });
      t.match(user!.id, USER_ID);
      t.same(Object.keys(user!).sort(), ['createdAtMs', 'email', 'id', 'tenant'], 'no hash or lockout fields');
      t.same(await store.signInRecord(' DOC@clinic.example '), { ...user, passwordHash: 'scrypt$first', failedSignIns: 0, lockedUntilMs: null }, 'any case');
      t.equal(await store.signInRecord('nobody@clinic.example'), null);
      t.equal(await store.findInvite(token, T0 + 6), null, 'a used invite opens nothing');
      t.equal(await store.acceptInvite(token, 'scrypt$second', T0 + 6), null, 'used twice: the second is refused');
      t.equal((await store.signInRecord('doc@clinic.example'))?.passwordHash, 'scrypt$first', 'and changes nothing');
      t.same(await store.listUsers('clinic-a'), [user]);
    });

    t.test('acceptInvite: an expired invite creates nothing', async (t) => {
      const { store } = await open(t);
      const { token, expiresAtMs } = await store.createInvite('clinic-a', 'late@clinic.example', T0, 1000);
      t.equal(await store.acceptInvite(token, 'h', expiresAtMs), null);
      t.equal(await store.acceptInvite(token, 'h', expiresAtMs + DAY), null);
      t.equal(await store.signInRecord('late@clinic.example'), null);
      t.same(await store.listUsers('clinic-a'), []);
      const again = await store.createInvite('clinic-a', 'late@clinic.example', T0 + 2000, 1000);
      t.ok(await store.acceptInvite(again.token, 'h', T0 + 2999), 'a new invite still works, until its last ms');
    });

    t.test('inviting an email again replaces its unused invite; used ones stay used', async (t) => {
      const { store, rawRows } = await open(t);
      const first = await store.createInvite('clinic-a', 'doc@clinic.example', T0, DAY);
      const second = await store.createInvite('clinic-a', 'DOC@clinic.example', T0 + 1, DAY);
      t.equal(await store.findInvite(first.token, T0 + 2), null, 'the first is gone');
      t.equal(await store.acceptInvite(first.token, 'h1', T0 + 2), null, 'and cannot be used');
      t.equal((await store.findInvite(second.token, T0 + 2))?.expiresAtMs, T0 + 1 + DAY);
      t.equal((await rawRows('console_invites')).length, 1, 'one invite row for the email');
      t.ok(await store.acceptInvite(second.token, 'h2', T0 + 2));
      const reset = await store.createInvite('clinic-a', 'doc@clinic.example', T0 + 3, DAY);
      t.equal(await store.acceptInvite(second.token, 'h3', T0 + 4), null, 'a new invite does not revive the used one');
      t.ok(await store.findInvite(reset.token, T0 + 4));
      const rows = await rawRows('console_invites');
      t.equal(rows.length, 2, 'the used invite is kept beside the new one');
      t.equal(rows.filter((row) => row.used_at_ms === null).length, 1, 'one unused');
      t.equal(rows.find((row) => row.used_at_ms !== null)?.used_at_ms, T0 + 2, 'when it was used');
    });

    t.test('an email with an account in another tenant is refused (email_taken); an invite in its own tenant is a reset', async (t) => {
      const { store, rawRows } = await open(t);
      await account(store, 'clinic-a', 'doc@clinic.example');
      const before = await rawRows('console_invites');
      await refused(t, () => store.createInvite('clinic-b', 'doc@clinic.example', T0, DAY), 'email_taken', 'same email');
      await refused(t, () => store.createInvite('clinic-b', ' Doc@CLINIC.example', T0, DAY), 'email_taken', 'any case');
      t.same(await rawRows('console_invites'), before, 'nothing stored');
      t.ok(await store.createInvite('clinic-a', 'doc@clinic.example', T0, DAY), 'its own tenant may invite it again');
      // Before an account exists the email is nobody's: a later invite from another tenant replaces the first.
      const a = await store.createInvite('clinic-a', 'new@clinic.example', T0, DAY);
      const b = await store.createInvite('clinic-b', 'new@clinic.example', T0, DAY);
      t.equal(await store.findInvite(a.token, T0), null);
      t.equal((await store.acceptInvite(b.token, 'h', T0))?.tenant, 'clinic-b');
      await refused(t, () => store.createInvite('clinic-a', 'new@clinic.example', T0, DAY), 'email_taken', 'now taken by clinic-b');
    });

    t.test('a reset by invite: new password, failures and lockout cleared, every session ended, same account', async (t) => {
      const { store } = await open(t);
      const user = await account(store, 'clinic-a', 'doc@clinic.example', T0, 'old-hash');
      const bystander = await account(store, 'clinic-a', 'nurse@clinic.example');
      const sessions = [await store.createSession(user.id, T0), await store.createSession(user.id, T0)];
      const kept = await store.createSession(bystander.id, T0);
      t.equal(await store.recordFailedSignIn(user.id, T0, 5, MINUTE), null);
      const lockedUntil = await store.recordFailedSignIn(user.id, T0, 2, MINUTE);
      t.equal(lockedUntil, T0 + MINUTE);
      await store.recordFailedSignIn(user.id, T0, 5, MINUTE);

      const { token } = await store.createInvite('clinic-a', 'DOC@clinic.example', T0 + 10, DAY);
      t.same(await store.findInvite(token, T0 + 10), { tenant: 'clinic-a', email: 'doc@clinic.example', expiresAtMs: T0 + 10 + DAY });
      t.same(await store.acceptInvite(token, 'new-hash', T0 + 20), user, 'the same account, created when it was');
      t.same(await store.signInRecord('doc@clinic.example'), { ...user, passwordHash: 'new-hash', failedSignIns: 0, lockedUntilMs: null });
      for (const session of sessions) t.equal(await store.session(session.token, T0 + 21, LIMITS), null, 'its sessions are ended');
      t.equal(await store.endAllSessions(user.id), 0, 'none left');
      t.equal((await store.session(kept.token, T0 + 21, LIMITS))?.user.id, bystander.id, "another account's session is untouched");
      // Both accounts were made at T0: listUsers orders ties by id, which is random.
      t.same((await store.listUsers('clinic-a')).map((u) => u.email).sort(), ['doc@clinic.example', 'nurse@clinic.example'], 'no second account');
    });

    t.test('recordFailedSignIn: counts, locks at lockAfter and starts again; recordSignIn clears', async (t) => {
      const { store } = await open(t);
      const user = await account(store, 'clinic-a', 'doc@clinic.example');
      const other = await account(store, 'clinic-a', 'nurse@clinic.example');
      const record = () => store.signInRecord('doc@clinic.example');
      t.equal(await store.recordFailedSignIn(user.id, T0, 3, 15 * MINUTE), null);
      t.equal(await store.recordFailedSignIn(user.id, T0 + 1, 3, 15 * MINUTE), null);
      t.match(await record(), { failedSignIns: 2, lockedUntilMs: null });
      t.equal(await store.recordFailedSignIn(user.id, T0 + 2, 3, 15 * MINUTE), T0 + 2 + 15 * MINUTE, 'the third locks');
      t.match(await record(), { failedSignIns: 0, lockedUntilMs: T0 + 2 + 15 * MINUTE }, 'and the count starts again');
      t.equal(await store.recordFailedSignIn(user.id, T0 + 3, 3, 15 * MINUTE), T0 + 2 + 15 * MINUTE, 'still locked: when until');
      t.match(await record(), { failedSignIns: 1, lockedUntilMs: T0 + 2 + 15 * MINUTE });
      t.match(await store.signInRecord('nurse@clinic.example'), { failedSignIns: 0, lockedUntilMs: null }, 'another account is untouched');

      await store.recordSignIn(user.id);
      t.match(await record(), { failedSignIns: 0, lockedUntilMs: null }, 'a sign-in clears the failures and the lock');
      t.equal(await store.recordFailedSignIn(user.id, T0 + 4, 3, 15 * MINUTE), null, 'counting starts from zero');

      // A lock that has run out is not reported; the next lock is from the new failures.
      await store.recordFailedSignIn(user.id, T0 + 4, 2, MINUTE);
      t.equal(await store.recordFailedSignIn(user.id, T0 + 4 + 2 * MINUTE, 2, MINUTE), null, 'the old lock is over');
      t.equal(await store.recordFailedSignIn(user.id, T0 + 4 + 2 * MINUTE, 2, MINUTE), T0 + 4 + 3 * MINUTE);
      t.equal(await store.recordFailedSignIn('cu_0000000000000000', T0, 1, MINUTE), null, 'an unknown account: nothing');
      await store.recordSignIn('cu_0000000000000000');
      t.match(await store.signInRecord('nurse@clinic.example'), { id: other.id, failedSignIns: 0, lockedUntilMs: null });
    });

    t.test('sessions: tokens, the user and CSRF token they open, sign-out', async (t) => {
      const { store } = await open(t);
      const user = await account(store, 'clinic-a', 'doc@clinic.example');
      const a = await store.createSession(user.id, T0);
      const b = await store.createSession(user.id, T0 + 1);
      t.match(a.token, TOKEN);
      t.match(a.csrfToken, TOKEN);
      t.equal(new Set([a.token, a.csrfToken, b.token, b.csrfToken]).size, 4, 'all distinct');
      t.same(await store.session(a.token, T0 + 5, LIMITS), { user, csrfToken: a.csrfToken, createdAtMs: T0 });
      t.same(await store.session(b.token, T0 + 5, LIMITS), { user, csrfToken: b.csrfToken, createdAtMs: T0 + 1 });
      for (const token of ['A'.repeat(43), '', a.csrfToken, `${a.token} `, undefined as unknown as string]) {
        t.equal(await store.session(token, T0 + 5, LIMITS), null, `no session for ${JSON.stringify(token?.slice(0, 8))}`);
      }
      await store.endSession(a.token);
      t.equal(await store.session(a.token, T0 + 6, LIMITS), null, 'signed out');
      t.ok(await store.session(b.token, T0 + 6, LIMITS), 'the other session stays');
      await store.endSession(a.token);
      await store.endSession('not a token');

      const other = await account(store, 'clinic-a', 'nurse@clinic.example');
      const others = await store.createSession(other.id, T0);
      await store.createSession(user.id, T0 + 2);
      t.equal(await store.endAllSessions(user.id), 2, 'sign-out everywhere: how many');
      t.equal(await store.session(b.token, T0 + 7, LIMITS), null);
      t.equal(await store.endAllSessions(user.id), 0);
      t.ok(await store.session(others.token, T0 + 7, LIMITS), "another account's session stays");
      t.equal(await store.endAllSessions('cu_0000000000000000'), 0);
      t.ok((await failureOf(() => store.createSession('cu_0000000000000000', T0))) instanceof Error, 'no session for an unknown account');
    });

    t.test("endOtherSessions: every session of the account but the kept one ends; other accounts' stay", async (t) => {
      const { store } = await open(t);
      const user = await account(store, 'clinic-a', 'doc@clinic.example');
      const other = await account(store, 'clinic-a', 'nurse@clinic.example');
      const kept = await store.createSession(user.id, T0);
      const ended = [await store.createSession(user.id, T0 + 1), await store.createSession(user.id, T0 + 2)];
      const others = await store.createSession(other.id, T0);
      t.equal(await store.endOtherSessions(user.id, kept.token), 2, 'how many');
      t.same(await store.session(kept.token, T0 + 5, LIMITS), { user, csrfToken: kept.csrfToken, createdAtMs: T0 }, 'the kept one stays, as it was');
      for (const session of ended) t.equal(await store.session(session.token, T0 + 5, LIMITS), null, 'the others are ended');
      t.ok(await store.session(others.token, T0 + 5, LIMITS), "another account's session stays");
      t.equal(await store.endOtherSessions(user.id, kept.token), 0, 'none left but the kept one');

      // A token that is not the account's keeps nothing of it: another account's, or no token at all.
      const more = await store.createSession(user.id, T0 + 3);
      t.equal(await store.endOtherSessions(user.id, others.token), 2, "another account's token: all of the account's end");
      t.equal(await store.session(more.token, T0 + 5, LIMITS), null);
      t.ok(await store.session(others.token, T0 + 5, LIMITS), 'and that token still opens its own session');
      const last = await store.createSession(user.id, T0 + 4);
      t.equal(await store.endOtherSessions(user.id, 'not a token'), 1);
      t.equal(await store.session(last.token, T0 + 5, LIMITS), null);
      t.equal(await store.endOtherSessions('cu_0000000000000000', kept.token), 0, 'an unknown account: nothing');
    });

    t.test('sessions: the idle limit, moved by each use', async (t) => {
      const { store, rawRows } = await open(t);
      const user = await account(store, 'clinic-a', 'doc@clinic.example');
      const { token } = await store.createSession(user.id, T0);
      const idle = LIMITS.idleMs;
      t.ok(await store.session(token, T0 + idle - 1, LIMITS), 'used just before the idle limit');
      t.equal((await rawRows('console_sessions'))[0].last_seen_ms, T0 + idle - 1, 'its last use is now');
      t.ok(await store.session(token, T0 + 2 * idle - 2, LIMITS), 'which moved the limit');
      t.ok(await store.session(token, T0 + 2 * idle - 3, LIMITS), 'a request stamped a little earlier still gets in');
      t.equal((await rawRows('console_sessions'))[0].last_seen_ms, T0 + 2 * idle - 2, 'without moving the last use back');
      t.equal(await store.session(token, T0 + 3 * idle - 2, LIMITS), null, 'unused for idleMs: ended');
      t.same(await rawRows('console_sessions'), [], 'and deleted');
      t.equal(await store.session(token, T0 + 2 * idle, LIMITS), null, 'for good');
    });

    t.test('sessions: the absolute limit, used or not', async (t) => {
      const { store, rawRows } = await open(t);
      const user = await account(store, 'clinic-a', 'doc@clinic.example');
      const { token } = await store.createSession(user.id, T0);
      const kept = await store.createSession(user.id, T0 + LIMITS.absoluteMs);
      let at = T0;
      while (at + LIMITS.idleMs / 2 < T0 + LIMITS.absoluteMs) {
        at += LIMITS.idleMs / 2;
        t.ok(await store.session(token, at, LIMITS), `in use at +${(at - T0) / MINUTE} min`);
      }
      t.ok(await store.session(token, T0 + LIMITS.absoluteMs - 1, LIMITS), 'until its last ms');
      t.equal(await store.session(token, T0 + LIMITS.absoluteMs, LIMITS), null, 'absoluteMs after sign-in: ended, however recently used');
      t.same(
        (await rawRows('console_sessions')).map((row) => row.created_at_ms),
        [T0 + LIMITS.absoluteMs],
        'its row is deleted, not the newer one',
      );
      t.ok(await store.session(kept.token, T0 + LIMITS.absoluteMs, LIMITS));
    });

    t.test('deleteEnded: used and expired invites, sessions past either limit, ended sign-in windows; what still opens stays', async (t) => {
      const { store, rawRows } = await open(t);
      const user = await account(store, 'clinic-a', 'doc@clinic.example', T0);
      const expiring = await store.createInvite('clinic-a', 'late@clinic.example', T0, 10 * MINUTE);
      const unused = await store.createInvite('clinic-a', 'new@clinic.example', T0, DAY);
      const now = T0 + LIMITS.absoluteMs + MINUTE;
      // At `now`: one session unused for exactly idleMs, one in use but signed in exactly absoluteMs ago, one live.
      const idle = await store.createSession(user.id, now - LIMITS.idleMs);
      const old = await store.createSession(user.id, T0 + MINUTE);
      for (let at = T0 + MINUTE; at < now; at += LIMITS.idleMs / 2) t.ok(await store.session(old.token, at, LIMITS));
      const live = await store.createSession(user.id, now - LIMITS.idleMs + 1);
      const stale = await store.countSignInAttempt('203.0.113.7', now - SIGN_IN_WINDOW_MS);
      const current = await store.countSignInAttempt('2001:db8::1', now - SIGN_IN_WINDOW_MS + 1);
      t.same([stale.attempts, current.attempts], [1, 1]);
      // Password failures end lockMs after the last one: one pair ends exactly at `now`, one a ms later.
      await store.recordFailedPassword('subject-ended', '203.0.113.7', now - 15 * MINUTE, 5, 15 * MINUTE);
      await store.recordFailedPassword('subject-current', '203.0.113.7', now - 15 * MINUTE + 1, 5, 15 * MINUTE);
      t.same(
        await store.deleteEnded(T0 + 2 * MINUTE, LIMITS),
        { invites: 1, sessions: 0, signInWindows: 0, passwordFailures: 0 },
        'early on, only the used invite goes',
      );

      const ended = await store.deleteEnded(now, LIMITS);
      t.same(
        ended,
        { invites: 1, sessions: 2, signInWindows: 1, passwordFailures: 1 },
        'the expired invite, the idle and the old session, the ended window, the ended password failures',
      );
      t.same(
        (await rawRows('console_password_failures')).map((row) => row.subject),
        ['subject-current'],
        'current password failures stay',
      );
      t.equal(await store.findInvite(expiring.token, now), null);
      t.same(
        await store.findInvite(unused.token, now),
        { tenant: 'clinic-a', email: 'new@clinic.example', expiresAtMs: T0 + DAY },
        'an unused, unexpired invite stays',
      );
      t.same(
        (await rawRows('console_invites')).map((row) => row.email),
        ['new@clinic.example'],
      );
      t.same(
        (await rawRows('console_sessions')).map((row) => row.created_at_ms),
        [now - LIMITS.idleMs + 1],
        'the live session stays',
      );
      t.equal((await store.session(live.token, now, LIMITS))?.user.id, user.id, 'and still opens');
      t.equal(await store.session(idle.token, now - LIMITS.idleMs, LIMITS), null, 'the ended ones are gone');
      t.same(
        (await rawRows('console_sign_in_attempts')).map((row) => row.address),
        ['2001:db8::1'],
        'the current window stays',
      );
      t.same(await store.deleteEnded(now, LIMITS), { invites: 0, sessions: 0, signInWindows: 0, passwordFailures: 0 }, 'nothing more');
    });

    t.test('countSignInAttempt: per address, a window from its first attempt, never moved back; one count across connections', async (t) => {
      const { store, another, rawRows } = await open(t);
      const others = [await another(), await another()];
      t.same(await store.countSignInAttempt('203.0.113.7', T0), { windowStartMs: T0, attempts: 1 });
      t.same(await others[0].countSignInAttempt('203.0.113.7', T0 + 10), { windowStartMs: T0, attempts: 2 }, 'another process counts on');
      t.same(await store.countSignInAttempt('198.51.100.1', T0 + 20), { windowStartMs: T0 + 20, attempts: 1 }, 'another address: its own window');
      t.same(await others[1].countSignInAttempt('203.0.113.7', T0 - 5_000), { windowStartMs: T0, attempts: 3 }, 'a lagging clock: the window stays');
      t.same(await store.countSignInAttempt('203.0.113.7', T0 + SIGN_IN_WINDOW_MS - 1), { windowStartMs: T0, attempts: 4 }, 'until its last ms');
      t.same(
        await store.countSignInAttempt('203.0.113.7', T0 + SIGN_IN_WINDOW_MS),
        { windowStartMs: T0 + SIGN_IN_WINDOW_MS, attempts: 1 },
        'a window later: a new window',
      );
      const racing = await Promise.all([store, ...others].flatMap((s) => Array.from({ length: 4 }, () => s.countSignInAttempt('192.0.2.9', T0))));
      t.same(
        racing.map((r) => r.attempts).sort((a, b) => a - b),
        Array.from({ length: 12 }, (_, i) => i + 1),
        'racing attempts from three connections: each counted once',
      );
      t.equal((await rawRows('console_sign_in_attempts')).length, 3, 'one row an address');
    });

    t.test('recordFailedPassword: locks only its (subject, address) pair at lockAfter; forgotten lockMs after the last; cleared', async (t) => {
      const { store, another, rawRows } = await open(t);
      await account(store, 'clinic-a', 'doc@clinic.example');
      const lock = 15 * MINUTE;
      const fail = (subject: string, address: string, at: number, s = store) => s.recordFailedPassword(subject, address, at, 3, lock);
      t.equal(await fail('doc', '203.0.113.7', T0), null);
      t.equal(await fail('doc', '203.0.113.7', T0 + 1), null);
      t.equal(await store.passwordLockedUntil('doc', '203.0.113.7', T0 + 1), null, 'not locked before lockAfter');
      t.equal(await fail('doc', '203.0.113.7', T0 + 2), T0 + 2 + lock, 'the third locks the pair');
      t.equal(await store.passwordLockedUntil('doc', '203.0.113.7', T0 + 3), T0 + 2 + lock);
      t.equal(await store.passwordLockedUntil('doc', '203.0.113.7', T0 + 2 + lock - 1), T0 + 2 + lock, 'until its last ms');
      t.equal(await store.passwordLockedUntil('doc', '203.0.113.7', T0 + 2 + lock), null, 'then over');
      t.equal(await store.passwordLockedUntil('doc', '198.51.100.1', T0 + 3), null, 'the same subject from another address is not locked');
      t.equal(await store.passwordLockedUntil('nurse', '203.0.113.7', T0 + 3), null, 'another subject from the address is not');
      t.match(await store.signInRecord('doc@clinic.example'), { failedSignIns: 0, lockedUntilMs: null }, 'nor is any account');

      // Forgotten lockMs after the last failure: two failures, then a third after that, count from one.
      t.equal(await fail('nurse', '203.0.113.7', T0), null);
      t.equal(await fail('nurse', '203.0.113.7', T0 + lock - 1), null);
      t.equal(await fail('nurse', '203.0.113.7', T0 + 2 * lock - 2), T0 + 3 * lock - 2, 'within lockMs of the last: the third locks');
      t.equal(await fail('gp', '203.0.113.7', T0), null);
      t.equal(await fail('gp', '203.0.113.7', T0 + 1), null);
      t.equal(await fail('gp', '203.0.113.7', T0 + 1 + lock), null, 'lockMs after the last: counted from one again');
      t.equal(await fail('gp', '203.0.113.7', T0 + 2 + lock), null);
      t.equal(await fail('gp', '203.0.113.7', T0 + 3 + lock), T0 + 3 + 2 * lock);
      t.equal(await fail('doc', '203.0.113.7', T0 + 2 + lock), null, 'a lock that ended: counting starts again, unlocked');
      t.equal(await store.passwordLockedUntil('doc', '203.0.113.7', T0 + 2 + lock), null);

      await store.clearFailedPasswords('doc', '203.0.113.7');
      t.equal(await fail('doc', '203.0.113.7', T0 + 3 + lock), null, 'cleared: from one again');
      t.equal(await fail('doc', '203.0.113.7', T0 + 4 + lock), null);
      t.equal(await store.clearFailedPasswords('unknown', '203.0.113.7'), undefined, 'clearing an unknown pair is nothing');

      // Racing failures from three connections are each counted: with lockAfter 12, exactly the twelfth locks.
      const stores = [store, await another(), await another()];
      const racing = await Promise.all(stores.flatMap((s) => Array.from({ length: 4 }, () => s.recordFailedPassword('race', '192.0.2.9', T0, 12, lock))));
      t.equal(racing.filter((until) => until !== null).length, 1, 'one of twelve racing failures locks');
      t.equal((await rawRows('console_password_failures')).filter((row) => row.subject === 'race').length, 1, 'one row a pair');
      t.equal(await store.recordFailedPassword('once', '192.0.2.9', T0, 1, lock), T0 + lock, 'lockAfter 1: the first locks');
    });

    t.test('listUsers: per tenant, oldest first, then by id in byte order', async (t) => {
      const { store } = await open(t);
      const b1 = await account(store, 'clinic-b', 'b1@clinic.example', T0);
      const a2 = await account(store, 'clinic-a', 'a2@clinic.example', T0 + 2);
      const a1 = await account(store, 'clinic-a', 'a1@clinic.example', T0 + 1);
      const ties: string[] = [];
      for (let i = 0; i < 8; i++) ties.push((await account(store, 'clinic-a', `tie${i}@clinic.example`, T0 + 3)).id);
      const byteOrder = [...ties].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      t.same(
        (await store.listUsers('clinic-a')).map((u) => u.id),
        [a1.id, a2.id, ...byteOrder],
      );
      t.same(await store.listUsers('clinic-b'), [b1]);
      t.same(await store.listUsers('clinic-c'), []);
    });

    t.test('two connections racing to use one invite: exactly one wins', async (t) => {
      const { store, another } = await open(t);
      const stores = [store, await another(), await another()];
      for (let round = 0; round < 5; round++) {
        const email = `race${round}@clinic.example`;
        const { token } = await store.createInvite('clinic-a', email, T0, DAY);
        const results = await Promise.all(stores.flatMap((s, i) => [s.acceptInvite(token, `hash-${i}a`, T0 + 1), s.acceptInvite(token, `hash-${i}b`, T0 + 1)]));
        const winners = results.filter((result) => result !== null);
        t.equal(winners.length, 1, `round ${round}: one use wins`);
        t.equal((await store.listUsers('clinic-a')).filter((u) => u.email === email).length, 1, 'one account');
      }
      // Invites of one email from two connections at once: each stands in turn, one is left unused.
      const invites = await Promise.all(
        stores.flatMap((s) => [s.createInvite('clinic-a', 'many@clinic.example', T0, DAY), s.createInvite('clinic-a', 'many@clinic.example', T0, DAY)]),
      );
      const findable = await Promise.all(invites.map((invite) => store.findInvite(invite.token, T0)));
      t.equal(findable.filter((invite) => invite !== null).length, 1, 'one invite left to use');
    });

    t.test('no invite or session token is stored in clear; only its SHA-256', async (t) => {
      const { store, rawRows } = await open(t);
      const invite = await store.createInvite('clinic-a', 'doc@clinic.example', T0, DAY);
      const pending = await store.createInvite('clinic-a', 'nurse@clinic.example', T0, DAY);
      const user = await store.acceptInvite(invite.token, 'scrypt$hash', T0);
      const session = await store.createSession(user!.id, T0);
      const rows = {
        console_users: await rawRows('console_users'),
        console_invites: await rawRows('console_invites'),
        console_sessions: await rawRows('console_sessions'),
      };
      for (const token of [invite.token, pending.token, session.token]) {
        for (const [table, tableRows] of Object.entries(rows)) {
          for (const row of tableRows) {
            for (const [column, value] of Object.entries(row)) {
              if (typeof value === 'string') t.notOk(value.includes(token), `${table}.${column} does not hold a token`);
              if (Buffer.isBuffer(value)) t.notOk(value.includes(Buffer.from(token)), `${table}.${column} does not hold a token`);
            }
          }
        }
      }
      t.same(
        rows.console_invites.map((row) => Buffer.from(row.token_sha256 as Buffer).toString('hex')).sort(),
        [sha256(invite.token).toString('hex'), sha256(pending.token).toString('hex')].sort(),
        'invites are kept as the SHA-256 of their tokens',
      );
      t.same(rows.console_sessions[0].token_sha256, sha256(session.token), 'a session as the SHA-256 of its token');
      // The CSRF token is not a credential on its own (a request needs the session token too): kept in clear.
      t.equal(rows.console_sessions[0].csrf_token, session.csrfToken);
      t.equal(rows.console_users[0].password_hash, 'scrypt$hash', 'the password as the hash the caller made');
    });
  });
}
