// The account page's checks of the signed-in user's own password and code, before a change to the
// second factor. A session cookie alone (a stolen one) must not become a way to guess them: each check
// takes from the address's sign-in limit and is refused while the account is locked, as sign-in is; a
// wrong password or code counts towards the account's lockout, and the session that reaches the lock
// is ended (a stolen cookie dies; the owner signs in again once the lock is over).
import type { FastifyRequest } from 'fastify';

import type { ConsoleSession } from '../store/console-account-store.js';
import type { ConsoleContext } from './console-context.js';
import { cookieValue, SESSION_COOKIE } from './console-http.js';
import type { Notice } from './console-layout.js';
import { tooMany } from './lockout-notices.js';
import { UNKNOWN_ACCOUNT_HASH, verifyPassword } from './password-hash.js';

/** Why a check may not be made now: how long to wait, and what to say. */
export interface CheckRefusal {
  waitMs: number;
  notice: Notice;
}

export type FailedCredential = 'password' | 'code';

export interface AccountCredentials {
  /** Takes one from the address's limit: null when a check may be made now; else why not (429). */
  refusal(request: FastifyRequest, session: ConsoleSession): Promise<CheckRefusal | null>;
  /** Whether `password` is the account's current one. */
  passwordMatches(session: ConsoleSession, password: string): Promise<boolean>;
  /** Counts a wrong password or code: when the account is now locked until (the session is then ended), else null. */
  failed(request: FastifyRequest, session: ConsoleSession, what: FailedCredential): Promise<number | null>;
}

export function accountCredentials(ctx: ConsoleContext): AccountCredentials {
  const accounts = ctx.deps.accounts;
  const who = (session: ConsoleSession) => ({ userId: session.user.id, tenantId: session.user.tenant });
  return {
    async refusal(request, session) {
      const waitMs = await ctx.throttle.take(request.ip);
      if (waitMs > 0) {
        ctx.alert(request, 'second_factor_refused', { reason: 'address_limit', ...who(session) });
        return { waitMs, notice: tooMany.fromAddress(waitMs) };
      }
      const now = ctx.deps.clock();
      const lockedUntil = (await accounts.signInRecord(session.user.email))?.lockedUntilMs ?? null;
      if (lockedUntil === null || lockedUntil <= now) return null;
      ctx.alert(request, 'second_factor_refused', { reason: 'account_locked', ...who(session) });
      return { waitMs: lockedUntil - now, notice: tooMany.onAccount(lockedUntil - now) };
    },
    async passwordMatches(session, password) {
      const record = await accounts.signInRecord(session.user.email);
      return verifyPassword(password, record?.passwordHash ?? UNKNOWN_ACCOUNT_HASH);
    },
    async failed(request, session, what) {
      const lockedUntil = await accounts.recordFailedSignIn(session.user.id, ctx.deps.clock(), ctx.limits.lockAfter, ctx.limits.lockMs);
      ctx.alert(request, 'second_factor_failed', { reason: what, ...who(session) });
      if (lockedUntil === null) return null;
      await accounts.endSession(cookieValue(request.headers.cookie, SESSION_COOKIE) ?? '');
      ctx.alert(request, 'account_locked', { sessionEnded: 1, ...who(session) });
      return lockedUntil;
    },
  };
}
