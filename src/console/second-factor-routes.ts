// The account page's second factor: TOTP set up (a fresh secret, in effect once the current password
// and a current code confirm it, with one-time recovery codes shown then), new recovery codes and
// turning it off (each needs the current password and a current code or a recovery code). Those
// checks are sign-in's (account-credentials.ts): limited per address, refused while the account is
// locked, a wrong password or code counted towards the lockout, which ends the session that reaches it.
// Open to an account its tenant requires TOTP of and that has none yet: this is where it is sent.
// Turning TOTP on signs the account's other sessions out (they never passed it). Audit lines:
// totp_setup_started, totp_enabled (with how many other sessions ended), recovery_codes_replaced,
// totp_disabled; never a secret or code. A change done answers 303 to the account page, its notice
// (and new recovery codes, shown that once) in a one-time flash (console-flash.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { ConsoleSession } from '../store/console-account-store.js';
import { accountCredentials, type FailedCredential } from './account-credentials.js';
import { type ConsoleContext, type Form, html } from './console-context.js';
import { cookieValue, expiredSessionCookie, SESSION_COOKIE } from './console-http.js';
import { messagePage, type Notice } from './console-layout.js';
import { refusedFor, tooMany } from './lockout-notices.js';
import { accountPage, type AccountView } from './second-factor-pages.js';
import { SECOND_FACTOR_SETUP_PATH } from './second-factor-requirement.js';
import { matchingTotpStep, newTotpSecret } from './totp.js';

export const RECOVERY_CODE_COUNT = 10;
const OPEN_BEFORE_SETUP = { beforeRequiredSecondFactor: true } as const;

export function registerSecondFactorRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const store = ctx.deps.stores.consoleSecondFactors;
  const credentials = accountCredentials(ctx);

  /** The account page as it stands now, with `notice` and (once) new recovery codes. */
  const page = async (reply: FastifyReply, session: ConsoleSession, notice: Notice | null, newRecoveryCodes: readonly string[] | null = null) => {
    const userId = session.user.id;
    const [required, enrolment] = await Promise.all([store.totpRequired(session.user.tenant), store.totp(userId)]);
    let view: AccountView;
    if (!enrolment) view = { state: 'off' };
    else if (enrolment.confirmedAtMs === null) view = { state: 'setup', secret: enrolment.secret };
    else view = { state: 'on', sinceMs: enrolment.confirmedAtMs, recoveryCodesLeft: await store.recoveryCodesLeft(userId), newRecoveryCodes };
    return html(reply, accountPage(ctx.pageUser(session), required, view, notice));
  };

  /** Whether `code` is a current TOTP code not used before, or an unused recovery code. */
  const secondFactorAccepted = async (userId: string, code: string): Promise<boolean> => {
    const now = ctx.deps.clock();
    const enrolment = await store.totp(userId);
    const step = enrolment?.confirmedAtMs != null ? matchingTotpStep(enrolment.secret, code, now) : null;
    return step !== null ? store.useTotpStep(userId, step) : store.useRecoveryCode(userId, code, now);
  };

  /**
   * The current password and, with `code`, a current code or recovery code, checked as sign-in checks
   * them (account-credentials.ts): true when both are right; else the answer was sent (422; 429 when refused
   * or once the account locks, the session then ended).
   */
  const credentialsChecked = async (request: FastifyRequest, reply: FastifyReply, session: ConsoleSession, what: string, code: boolean) => {
    const refused = await credentials.refusal(request, session);
    if (refused) {
      await page(refusedFor(reply, refused.waitMs), session, refused.notice);
      return false;
    }
    const form = (request.body ?? {}) as Form;
    let failure: FailedCredential | null = null;
    if (!(await credentials.passwordMatches(session, form.password ?? ''))) failure = 'password';
    else if (code && !(await secondFactorAccepted(session.user.id, form.code ?? ''))) failure = 'code';
    if (failure === null) return true;
    const lockedUntil = await credentials.failed(request, session, failure);
    if (lockedUntil !== null) {
      const waitMs = lockedUntil - ctx.deps.clock();
      const text = `${tooMany.onAccount(waitMs).text} This session is signed out.`;
      html(refusedFor(reply, waitMs).header('set-cookie', expiredSessionCookie(ctx.deps.secureCookies)), messagePage('Signed out', text));
      return false;
    }
    await page(reply.code(422), session, failure === 'password' ? wrongPassword(what) : wrongCode(what));
    return false;
  };

  app.get(SECOND_FACTOR_SETUP_PATH, async (request, reply) => {
    const session = await ctx.signedIn(request, reply, OPEN_BEFORE_SETUP);
    if (!session) return reply;
    const flash = ctx.flash<string[]>(request, reply, SECOND_FACTOR_SETUP_PATH);
    return page(reply, session, flash?.notice ?? null, flash?.shown ?? null);
  });
  // A change's address opened as a page (typed, or a reload after a refusal): the account page, not a 404.
  for (const path of ['/account/totp', '/account/totp/confirm', '/account/recovery-codes', '/account/totp/disable']) {
    app.get(path, async (_request, reply) => reply.code(303).header('location', SECOND_FACTOR_SETUP_PATH).send());
  }

  // A fresh secret each time (one waiting for its code is replaced): shown on the page it answers with.
  app.post('/account/totp', async (request, reply) => {
    const session = await ctx.change(request, reply, OPEN_BEFORE_SETUP);
    if (!session) return reply;
    if (await store.totpEnabled(session.user.id)) return page(reply.code(409), session, { kind: 'error', text: 'Two-step sign-in is on already.' });
    await store.beginTotp(session.user.id, newTotpSecret(), ctx.deps.clock());
    ctx.audit(request, session, 'totp_setup_started');
    return ctx.done(request, reply, SECOND_FACTOR_SETUP_PATH, {
      notice: { kind: 'ok', text: 'Set-up started: add the key to your app, then confirm with a code.' },
    });
  });

  app.post('/account/totp/confirm', async (request, reply) => {
    const session = await ctx.change(request, reply, OPEN_BEFORE_SETUP);
    if (!session) return reply;
    const enrolment = await store.totp(session.user.id);
    if (!enrolment || enrolment.confirmedAtMs !== null) {
      return page(reply.code(409), session, { kind: 'error', text: enrolment ? 'Two-step sign-in is on already.' : 'Set it up first.' });
    }
    if (!(await credentialsChecked(request, reply, session, 'Not turned on', false))) return reply;
    const now = ctx.deps.clock();
    const step = matchingTotpStep(enrolment.secret, codeOf(request), now);
    if (step === null) {
      const text = 'Not turned on: that is not the code the app shows now. Check the key was typed in full, and the phone’s clock.';
      return page(reply.code(422), session, { kind: 'error', text });
    }
    if (!(await store.confirmTotp(session.user.id, step, now)))
      return page(reply.code(409), session, { kind: 'error', text: 'Two-step sign-in is on already.' });
    const codes = await store.replaceRecoveryCodes(session.user.id, RECOVERY_CODE_COUNT, now);
    // The account's other sessions never passed the second factor (another browser, or a stolen cookie):
    // securing the account signs them out, as GitHub and Google do; this one, which just typed a code, stays.
    const ended = await ctx.deps.accounts.endOtherSessions(session.user.id, cookieValue(request.headers.cookie, SESSION_COOKIE) ?? '');
    ctx.audit(request, session, 'totp_enabled', { otherSessionsEnded: ended });
    const signedOut = ended > 0 ? ` Your other ${ended === 1 ? 'session was' : `${ended} sessions were`} signed out.` : '';
    const notice: Notice = { kind: 'ok', text: `Two-step sign-in is on: your next sign-in asks for a code.${signedOut}` };
    return ctx.done(request, reply, SECOND_FACTOR_SETUP_PATH, { notice, shown: codes });
  });

  app.post('/account/recovery-codes', async (request, reply) => {
    const session = await ctx.change(request, reply, OPEN_BEFORE_SETUP);
    if (!session) return reply;
    if (!(await store.totpEnabled(session.user.id))) return page(reply.code(409), session, { kind: 'error', text: 'Two-step sign-in is off.' });
    if (!(await credentialsChecked(request, reply, session, 'No new codes', true))) return reply;
    const codes = await store.replaceRecoveryCodes(session.user.id, RECOVERY_CODE_COUNT, ctx.deps.clock());
    ctx.audit(request, session, 'recovery_codes_replaced');
    return ctx.done(request, reply, SECOND_FACTOR_SETUP_PATH, {
      notice: { kind: 'ok', text: 'New recovery codes: the earlier ones no longer work.' },
      shown: codes,
    });
  });

  app.post('/account/totp/disable', async (request, reply) => {
    const session = await ctx.change(request, reply, OPEN_BEFORE_SETUP);
    if (!session) return reply;
    if (!(await store.totpEnabled(session.user.id))) return page(reply.code(409), session, { kind: 'error', text: 'Two-step sign-in is off.' });
    if (await store.totpRequired(session.user.tenant)) {
      return page(reply.code(409), session, { kind: 'error', text: `${session.user.tenant} requires a second factor: it stays on.` });
    }
    if (!(await credentialsChecked(request, reply, session, 'Not turned off', true))) return reply;
    await store.removeTotp(session.user.id);
    ctx.audit(request, session, 'totp_disabled');
    return ctx.done(request, reply, SECOND_FACTOR_SETUP_PATH, {
      notice: { kind: 'ok', text: 'Two-step sign-in is off: signing in takes your password alone.' },
    });
  });
}

function codeOf(request: FastifyRequest): string {
  return (request.body as Form | undefined)?.code ?? '';
}

function wrongPassword(what: string): Notice {
  return { kind: 'error', text: `${what}: that is not your current password.` };
}

function wrongCode(what: string): Notice {
  return { kind: 'error', text: `${what}: the code is not right, or was used already. Wait for the app's next code.` };
}
