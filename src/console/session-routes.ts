// Signing in and out: the sign-in form (limited per address, accounts locked after repeated
// failures, one answer for an unknown email and a wrong password), an invite's password, sign-out and
// sign-out everywhere. A sign-in always opens a new session (no fixation).
import type { FastifyInstance } from 'fastify';
import { SESSION_COOKIE, cookieValue, expiredSessionCookie } from './console-http.js';
import { html, type ConsoleContext, type Form } from './console-context.js';
import { messagePage, type Notice } from './console-layout.js';
import { UNKNOWN_ACCOUNT_HASH, hashPassword, verifyPassword } from './password-hash.js';
import { passwordProblem } from './password-policy.js';
import { SignInThrottle } from './sign-in-throttle.js';
import { invitePage, signInPage } from './sign-in-pages.js';

export function registerSessionRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const throttle = new SignInThrottle(ctx.limits.signInsPerMinute, ctx.deps.clock);
  app.get('/sign-in', async (_request, reply) => html(reply, signInPage('', null)));
  app.post('/sign-in', async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const email = (form.email ?? '').trim().toLowerCase();
    const password = form.password ?? '';
    const waitMs = throttle.take(request.ip);
    if (waitMs > 0) {
      return html(reply.code(429).header('retry-after', String(Math.ceil(waitMs / 1000))), signInPage(email, tooMany(waitMs, 'from this address')));
    }
    const record = email ? await ctx.deps.accounts.signInRecord(email) : null;
    const now = ctx.deps.clock();
    if (record?.lockedUntilMs != null && record.lockedUntilMs > now) {
      return html(reply.code(429), signInPage(email, tooMany(record.lockedUntilMs - now, 'on this account after repeated failures')));
    }
    // An unknown email takes as long as a wrong password: the answer does not say which accounts exist.
    const matches = await verifyPassword(password, record?.passwordHash ?? UNKNOWN_ACCOUNT_HASH);
    if (!record || !matches) {
      const lockedUntil = record ? await ctx.deps.accounts.recordFailedSignIn(record.id, now, ctx.limits.lockAfter, ctx.limits.lockMs) : null;
      if (lockedUntil !== null) return html(reply.code(429), signInPage(email, tooMany(lockedUntil - now, 'on this account after repeated failures')));
      return html(reply.code(401), signInPage(email, { kind: 'error', text: 'The email or the password is not right.' }));
    }
    await ctx.deps.accounts.recordSignIn(record.id);
    // A new session whatever cookie came with the request: none chosen by someone else is ever adopted.
    const previous = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (previous) await ctx.deps.accounts.endSession(previous);
    await ctx.startSession(reply, record.id);
    request.log.info({ audit: 'signed_in', userId: record.id, tenantId: record.tenant }, 'console audit');
    return reply.code(303).header('location', '/keys').send();
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
    await ctx.startSession(reply, user.id);
    request.log.info({ audit: 'password_set', userId: user.id, tenantId: user.tenant }, 'console audit');
    return reply.code(303).header('location', '/keys').send();
  });

  app.post('/sign-out', async (request, reply) => {
    const session = await ctx.change(request, reply);
    if (!session) return reply;
    await ctx.deps.accounts.endSession(cookieValue(request.headers.cookie, SESSION_COOKIE) ?? '');
    ctx.audit(request, session, 'signed_out');
    return reply.code(303).header('set-cookie', expiredSessionCookie(ctx.deps.secureCookies)).header('location', '/sign-in').send();
  });

  // Every session of the account ends, this one included (a lost laptop, a shared machine).
  app.post('/sign-out-everywhere', async (request, reply) => {
    const session = await ctx.change(request, reply);
    if (!session) return reply;
    const ended = await ctx.deps.accounts.endAllSessions(session.user.id);
    ctx.audit(request, session, 'signed_out_everywhere', { sessions: String(ended) });
    return reply.code(303).header('set-cookie', expiredSessionCookie(ctx.deps.secureCookies)).header('location', '/sign-in').send();
  });
}

function tooMany(waitMs: number, where: string): Notice {
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
  return { kind: 'error', text: `Too many sign-in attempts ${where}: try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` };
}
