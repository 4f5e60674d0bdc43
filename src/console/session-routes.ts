// Signing in and out: the sign-in form (limited per address; wrong passwords lock the email typed
// from that address, whether an account has it or not, so neither the answer nor the lock tells
// which accounts exist and a stranger elsewhere locks nobody out; one answer for an unknown email and
// a wrong password), an invite's password, sign-out and sign-out everywhere. A sign-in always opens a
// new session (no fixation). Failures, refusals and locks are warn-level audit lines (ctx.alert).
//
// An account with TOTP on signs in in two steps: the right password yields a pending sign-in (a
// cookie of its own that opens only the code form, for a few minutes; see pending-sign-in.ts), and a
// current code (or a recovery code) opens the session. A wrong code counts towards the account's
// lockout (whoever types it has the password), and the failures are cleared only once the code is
// right, so a known password cannot be used to guess codes for ever.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { ConsoleUser } from '../store/console-account-store.js';
import { type ConsoleContext, type Form, html } from './console-context.js';
import { cookieValue, expiredSessionCookie, SESSION_COOKIE } from './console-http.js';
import { messagePage, type Notice } from './console-layout.js';
import { refusedFor, tooMany } from './lockout-notices.js';
import { hashPassword, UNKNOWN_ACCOUNT_HASH, verifyPassword } from './password-hash.js';
import { passwordProblem } from './password-policy.js';
import { expiredPendingSignInCookie, PENDING_SIGN_IN_MS, pendingSignInCookie, pendingSignInToken } from './pending-sign-in.js';
import { codePage } from './second-factor-pages.js';
import { invitePage, signInPage } from './sign-in-pages.js';
import { signInSubject } from './sign-in-subject.js';
import { throttledAddress } from './sign-in-throttle.js';
import { matchingTotpStep } from './totp.js';

export function registerSessionRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const accounts = ctx.deps.accounts;
  const secondFactors = ctx.deps.stores.consoleSecondFactors;
  const secure = ctx.deps.secureCookies;

  /** Not a session yet: a pending sign-in, with which only the code form opens. */
  const awaitCode = async (reply: FastifyReply, userId: string, nowMs: number) => {
    const pending = await secondFactors.createPendingSignIn(userId, nowMs, PENDING_SIGN_IN_MS);
    return reply.code(303).header('set-cookie', pendingSignInCookie(pending, secure)).header('location', '/sign-in/code').send();
  };

  /** Opens a new session whatever cookie came with the request: none chosen by someone else is ever adopted. */
  const openSession = async (request: FastifyRequest, reply: FastifyReply, user: ConsoleUser, secondFactor: 'totp' | 'recovery_code' | null) => {
    await ctx.deps.accounts.recordSignIn(user.id);
    const previous = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (previous) await ctx.deps.accounts.endSession(previous);
    await ctx.startSession(reply, user.id);
    request.log.info({ audit: 'signed_in', userId: user.id, tenantId: user.tenant, ...(secondFactor ? { secondFactor } : {}) }, 'console audit');
    return reply.code(303).header('location', '/keys').send();
  };

  app.get('/sign-in', async (_request, reply) => html(reply, signInPage('', null)));
  app.post('/sign-in', async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const email = (form.email ?? '').trim().toLowerCase();
    const password = form.password ?? '';
    const refuse = (waitMs: number, notice: Notice) => html(refusedFor(reply, waitMs), signInPage(email, notice));
    const waitMs = await ctx.throttle.take(request.ip);
    if (waitMs > 0) {
      ctx.alert(request, 'sign_in_refused', { reason: 'address_limit' });
      return refuse(waitMs, tooMany.fromAddress(waitMs));
    }
    const now = ctx.deps.clock();
    const subject = signInSubject(email);
    const address = throttledAddress(request.ip);
    // Wrong passwords lock the email typed from this address only, known or not, before anything of
    // an account is read: the answer is the same for every email, and a stranger elsewhere locks nobody out.
    const pairLockedUntil = await accounts.passwordLockedUntil(subject, address, now);
    if (pairLockedUntil !== null) {
      ctx.alert(request, 'sign_in_refused', { reason: 'email_locked' });
      return refuse(pairLockedUntil - now, tooMany.forEmail(pairLockedUntil - now));
    }
    const record = email ? await accounts.signInRecord(email) : null;
    // An unknown email takes as long as a wrong password: the answer does not say which accounts exist.
    const matches = await verifyPassword(password, record?.passwordHash ?? UNKNOWN_ACCOUNT_HASH);
    if (!record || !matches) {
      const lockedUntil = await accounts.recordFailedPassword(subject, address, now, ctx.limits.lockAfter, ctx.limits.lockMs);
      ctx.alert(request, 'sign_in_failed', { reason: 'password', userId: record?.id });
      if (lockedUntil !== null) {
        ctx.alert(request, 'sign_in_locked', { scope: 'email_from_address', userId: record?.id });
        return refuse(lockedUntil - now, tooMany.forEmail(lockedUntil - now));
      }
      return html(reply.code(401), signInPage(email, { kind: 'error', text: 'The email or the password is not right.' }));
    }
    await accounts.clearFailedPasswords(subject, address);
    // The account's own lock (wrong codes after the password, or a session's wrong checks): told only to whoever knows the password.
    if (record.lockedUntilMs !== null && record.lockedUntilMs > now) {
      ctx.alert(request, 'sign_in_refused', { reason: 'account_locked', userId: record.id });
      return refuse(record.lockedUntilMs - now, tooMany.onAccount(record.lockedUntilMs - now));
    }
    if (!(await secondFactors.totpEnabled(record.id))) return openSession(request, reply, record, null);
    return awaitCode(reply, record.id, now);
  });

  app.get('/sign-in/code', async (request, reply) => {
    const token = pendingSignInToken(request.headers.cookie);
    if (!token || !(await secondFactors.pendingSignIn(token, ctx.deps.clock()))) return restart(reply, secure);
    return html(reply, codePage(null));
  });
  app.post('/sign-in/code', async (request, reply) => {
    const token = pendingSignInToken(request.headers.cookie);
    const waitMs = await ctx.throttle.take(request.ip);
    if (waitMs > 0) {
      ctx.alert(request, 'sign_in_refused', { reason: 'address_limit' });
      return html(refusedFor(reply, waitMs), codePage(tooMany.fromAddress(waitMs)));
    }
    const now = ctx.deps.clock();
    const user = token ? await secondFactors.pendingSignIn(token, now) : null;
    if (!token || !user) return restart(reply, secure);
    const record = await accounts.signInRecord(user.email);
    const enrolment = await secondFactors.totp(user.id);
    if (!record || enrolment?.confirmedAtMs == null) {
      // The account went, or its TOTP was turned off, since the password step: sign in again.
      await secondFactors.endPendingSignIn(token);
      return restart(reply, secure);
    }
    const locked = async (untilMs: number) => {
      await secondFactors.endPendingSignIn(token);
      reply.header('set-cookie', expiredPendingSignInCookie(secure));
      return html(refusedFor(reply, untilMs - now), signInPage(user.email, tooMany.onAccount(untilMs - now)));
    };
    if (record.lockedUntilMs !== null && record.lockedUntilMs > now) {
      ctx.alert(request, 'sign_in_refused', { reason: 'account_locked', userId: user.id });
      return locked(record.lockedUntilMs);
    }
    const code = ((request.body ?? {}) as Form).code ?? '';
    const step = matchingTotpStep(enrolment.secret, code, now);
    // A step used before (a replay, or a code seen over a shoulder) is refused as a wrong code is.
    const accepted = step !== null ? await secondFactors.useTotpStep(user.id, step) : await secondFactors.useRecoveryCode(user.id, code, now);
    if (!accepted) {
      const lockedUntil = await accounts.recordFailedSignIn(user.id, now, ctx.limits.lockAfter, ctx.limits.lockMs);
      ctx.alert(request, 'sign_in_failed', { reason: 'code', userId: user.id });
      if (lockedUntil !== null) {
        ctx.alert(request, 'account_locked', { userId: user.id });
        return locked(lockedUntil);
      }
      return html(reply.code(401), codePage({ kind: 'error', text: 'The code is not right, or was used already: wait for the next one.' }));
    }
    await secondFactors.endPendingSignIn(token);
    reply.header('set-cookie', expiredPendingSignInCookie(secure));
    return openSession(request, reply, user, step !== null ? 'totp' : 'recovery_code');
  });

  app.get('/invite/:token', async (request, reply) => {
    const { token } = request.params as { token: string };
    const invite = await ctx.deps.accounts.findInvite(token, ctx.deps.clock());
    if (!invite)
      return html(
        reply.code(404),
        messagePage('Invite not valid', 'This invite link was used already, has expired, or does not exist. Ask your operator for a new one.'),
      );
    return html(reply, invitePage(token, invite.email, invite.tenant, null));
  });
  app.post('/invite/:token', async (request, reply) => {
    const { token } = request.params as { token: string };
    const form = (request.body ?? {}) as Form;
    const invite = await ctx.deps.accounts.findInvite(token, ctx.deps.clock());
    if (!invite)
      return html(
        reply.code(404),
        messagePage('Invite not valid', 'This invite link was used already, has expired, or does not exist. Ask your operator for a new one.'),
      );
    const password = form.password ?? '';
    const problem = password !== (form.repeat ?? '') ? 'the two passwords differ' : passwordProblem(password, invite.email);
    if (problem) return html(reply.code(422), invitePage(token, invite.email, invite.tenant, { kind: 'error', text: `Not set: ${problem}.` }));
    const user = await ctx.deps.accounts.acceptInvite(token, await hashPassword(password), ctx.deps.clock());
    if (!user) return html(reply.code(404), messagePage('Invite not valid', 'This invite link was used already or has expired.'));
    request.log.info({ audit: 'password_set', userId: user.id, tenantId: user.tenant }, 'console audit');
    // A password reset by invite does not get past the second factor: an invite link alone (in a
    // mailbox, say) must not open an account that has one. The operator's reset-totp is for a lost phone.
    if (await secondFactors.totpEnabled(user.id)) return awaitCode(reply, user.id, ctx.deps.clock());
    await ctx.startSession(reply, user.id);
    return reply.code(303).header('location', '/keys').send();
  });

  // Open to an account sent to set up a required TOTP: it may always leave.
  app.post('/sign-out', async (request, reply) => {
    const session = await ctx.change(request, reply, { beforeRequiredSecondFactor: true });
    if (!session) return reply;
    await ctx.deps.accounts.endSession(cookieValue(request.headers.cookie, SESSION_COOKIE) ?? '');
    ctx.audit(request, session, 'signed_out');
    return reply.code(303).header('set-cookie', expiredSessionCookie(ctx.deps.secureCookies)).header('location', '/sign-in').send();
  });

  // Every session of the account ends, this one included (a lost laptop, a shared machine).
  app.post('/sign-out-everywhere', async (request, reply) => {
    const session = await ctx.change(request, reply, { beforeRequiredSecondFactor: true });
    if (!session) return reply;
    const ended = await ctx.deps.accounts.endAllSessions(session.user.id);
    ctx.audit(request, session, 'signed_out_everywhere', { sessions: String(ended) });
    return reply.code(303).header('set-cookie', expiredSessionCookie(ctx.deps.secureCookies)).header('location', '/sign-in').send();
  });
}

/** A pending sign-in that is gone or never was: back to the password. */
function restart(reply: FastifyReply, secure: boolean): FastifyReply {
  return reply.code(303).header('set-cookie', expiredPendingSignInCookie(secure)).header('location', '/sign-in').send();
}
