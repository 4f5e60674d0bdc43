// The account page's second factor: TOTP set up (a fresh secret, in effect once a current code
// confirms it, with one-time recovery codes shown then), new recovery codes and turning it off (each
// needs a current code or a recovery code; a wrong one counts towards the account's lockout, as at
// sign-in). Open to an account its tenant requires TOTP of and that has none yet: this is where it is
// sent. Turning TOTP on signs the account's other sessions out (they never passed it). Audit lines:
// totp_setup_started, totp_enabled (with how many other sessions ended), recovery_codes_replaced,
// totp_disabled; never a secret or code.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleSession } from '../store/console-account-store.js';
import { SESSION_COOKIE, cookieValue } from './console-http.js';
import { html, type ConsoleContext, type Form } from './console-context.js';
import type { Notice } from './console-layout.js';
import { accountPage, type AccountView } from './second-factor-pages.js';
import { SECOND_FACTOR_SETUP_PATH } from './second-factor-requirement.js';
import { matchingTotpStep, newTotpSecret } from './totp.js';

export const RECOVERY_CODE_COUNT = 10;
const OPEN_BEFORE_SETUP = { beforeRequiredSecondFactor: true } as const;

export function registerSecondFactorRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const store = ctx.deps.stores.consoleSecondFactors;

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

  /** Whether `code` is a current TOTP code not used before, or an unused recovery code; a wrong one counts towards the lockout. */
  const secondFactorAccepted = async (session: ConsoleSession, code: string): Promise<boolean> => {
    const userId = session.user.id;
    const now = ctx.deps.clock();
    const enrolment = await store.totp(userId);
    const step = enrolment?.confirmedAtMs != null ? matchingTotpStep(enrolment.secret, code, now) : null;
    const accepted = step !== null ? await store.useTotpStep(userId, step) : await store.useRecoveryCode(userId, code, now);
    if (!accepted) await ctx.deps.accounts.recordFailedSignIn(userId, now, ctx.limits.lockAfter, ctx.limits.lockMs);
    return accepted;
  };

  app.get(SECOND_FACTOR_SETUP_PATH, async (request, reply) => {
    const session = await ctx.signedIn(request, reply, OPEN_BEFORE_SETUP);
    if (!session) return reply;
    return page(reply, session, null);
  });

  // A fresh secret each time (one waiting for its code is replaced): shown on the page it answers with.
  app.post('/account/totp', async (request, reply) => {
    const session = await ctx.change(request, reply, OPEN_BEFORE_SETUP);
    if (!session) return reply;
    if (await store.totpEnabled(session.user.id)) return page(reply.code(409), session, { kind: 'error', text: 'Two-step sign-in is on already.' });
    await store.beginTotp(session.user.id, newTotpSecret(), ctx.deps.clock());
    ctx.audit(request, session, 'totp_setup_started');
    return page(reply, session, null);
  });

  app.post('/account/totp/confirm', async (request, reply) => {
    const session = await ctx.change(request, reply, OPEN_BEFORE_SETUP);
    if (!session) return reply;
    const enrolment = await store.totp(session.user.id);
    if (!enrolment || enrolment.confirmedAtMs !== null) {
      return page(reply.code(409), session, { kind: 'error', text: enrolment ? 'Two-step sign-in is on already.' : 'Set it up first.' });
    }
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
    return page(reply, session, { kind: 'ok', text: `Two-step sign-in is on: your next sign-in asks for a code.${signedOut}` }, codes);
  });

  app.post('/account/recovery-codes', async (request, reply) => {
    const session = await ctx.change(request, reply, OPEN_BEFORE_SETUP);
    if (!session) return reply;
    if (!(await store.totpEnabled(session.user.id))) return page(reply.code(409), session, { kind: 'error', text: 'Two-step sign-in is off.' });
    if (!(await secondFactorAccepted(session, codeOf(request)))) return page(reply.code(422), session, wrongCode('No new codes'));
    const codes = await store.replaceRecoveryCodes(session.user.id, RECOVERY_CODE_COUNT, ctx.deps.clock());
    ctx.audit(request, session, 'recovery_codes_replaced');
    return page(reply, session, { kind: 'ok', text: 'New recovery codes: the earlier ones no longer work.' }, codes);
  });

  app.post('/account/totp/disable', async (request, reply) => {
    const session = await ctx.change(request, reply, OPEN_BEFORE_SETUP);
    if (!session) return reply;
    if (!(await store.totpEnabled(session.user.id))) return page(reply.code(409), session, { kind: 'error', text: 'Two-step sign-in is off.' });
    if (await store.totpRequired(session.user.tenant)) {
      return page(reply.code(409), session, { kind: 'error', text: `${session.user.tenant} requires a second factor: it stays on.` });
    }
    if (!(await secondFactorAccepted(session, codeOf(request)))) return page(reply.code(422), session, wrongCode('Not turned off'));
    await store.removeTotp(session.user.id);
    ctx.audit(request, session, 'totp_disabled');
    return page(reply, session, { kind: 'ok', text: 'Two-step sign-in is off: signing in takes your password alone.' });
  });
}

function codeOf(request: FastifyRequest): string {
  return (request.body as Form | undefined)?.code ?? '';
}

function wrongCode(what: string): Notice {
  return { kind: 'error', text: `${what}: the code is not right, or was used already. Wait for the app's next code.` };
}
