// The developer console (SVC_CONSOLE_PORT): a tenant's people sign in with the account an operator
// invited them to, and manage the tenant's API keys. Server-rendered pages with plain forms (they work
// with a keyboard and without script); one small script module for copy buttons.
//
// Safety: sessions live in an HttpOnly, SameSite=Strict cookie (Secure unless served on loopback over
// plain HTTP) holding a random token the database keeps hashed; a sign-in always opens a new session
// (no fixation) and idle or old sessions end. Every change comes from the console's own origin (Fetch
// Metadata / Origin) and carries the session's CSRF token. Sign-ins are limited per account (locked
// after repeated failures) and per address. A user acts only on their own tenant's things: any other
// id answers as an unknown one. Every change writes one `console audit` log line (who, what, which
// id; never a secret, key or password).
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ConsoleAccountStore, ConsoleSession, SessionLimits } from '../store/console-account-store.js';
import { DEFAULT_ENTITLEMENTS, type ApiKeyRecord, type KeyStore } from '../store/key-store.js';
import { DEFAULT_PLAN } from '../store/key-record.js';
import { isKeyStoreError } from '../store/key-store-error.js';
import { CONSOLE_CSS, CONSOLE_JS } from './console-assets.js';
import { SECURITY_HEADERS, SESSION_COOKIE, cookieValue, expiredSessionCookie, sameOrigin, sessionCookie, tokensMatch } from './console-http.js';
import { invitePage, keysPage, messagePage, signInPage, type CreatedKey, type Notice, type PageUser } from './console-pages.js';
import { UNKNOWN_ACCOUNT_HASH, hashPassword, verifyPassword } from './password-hash.js';
import { passwordProblem } from './password-policy.js';
import { SignInThrottle } from './sign-in-throttle.js';

export interface ConsoleLimits extends SessionLimits {
  /** Failed sign-ins in a row that lock an account, and for how long. */
  lockAfter: number;
  lockMs: number;
  /** Sign-in attempts one address may make a minute. */
  signInsPerMinute: number;
}

export const DEFAULT_CONSOLE_LIMITS: ConsoleLimits = {
  idleMs: 30 * 60_000,
  absoluteMs: 12 * 3_600_000,
  lockAfter: 5,
  lockMs: 15 * 60_000,
  signInsPerMinute: 10,
};

export interface ConsoleDeps {
  accounts: ConsoleAccountStore;
  keys: Pick<KeyStore, 'list' | 'get' | 'create' | 'update'>;
  /** Revokes a key and closes what it left open (src/jobs/key-revocation.ts). */
  revokeKey(keyId: string): Promise<void>;
  clock: () => number;
  /** Whether the session cookie is Secure (false only on loopback over plain HTTP). */
  secureCookies: boolean;
  logger: FastifyBaseLogger;
  limits?: Partial<ConsoleLimits>;
}

type Form = Record<string, string>;

const FORM_BODY_LIMIT = 16 * 1024;

export function buildConsoleApp(deps: ConsoleDeps): FastifyInstance {
  const limits = { ...DEFAULT_CONSOLE_LIMITS, ...deps.limits };
  const throttle = new SignInThrottle(limits.signInsPerMinute, deps.clock);
  // Per-request lines are not logged: the console's audit lines say what changed, and who.
  const logController = new LogController({ disableRequestLogging: true });
  const app = Fastify({ loggerInstance: deps.logger, logController, trustProxy: false, bodyLimit: FORM_BODY_LIMIT });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    return payload;
  });
  // A change from anywhere but the console's own pages is refused before anything else is read.
  app.addHook('preHandler', async (request, reply) => {
    if (request.method === 'POST' && !sameOrigin(request.headers))
      return html(reply.code(403), messagePage('Refused', 'This change did not come from a console page.'));
  });

  const audit = (request: FastifyRequest, session: ConsoleSession, action: string, subject: Record<string, string> = {}) =>
    request.log.info({ audit: action, userId: session.user.id, tenantId: session.user.tenant, ...subject }, 'console audit');
  const pageUser = (session: ConsoleSession): PageUser => ({ email: session.user.email, tenant: session.user.tenant, csrfToken: session.csrfToken });

  /** The request's live session, or a redirect to sign-in (null). */
  const signedIn = async (request: FastifyRequest, reply: FastifyReply): Promise<ConsoleSession | null> => {
    const token = cookieValue(request.headers.cookie, SESSION_COOKIE);
    const session = token ? await deps.accounts.session(token, deps.clock(), limits) : null;
    if (!session) {
      reply.code(303).header('location', '/sign-in');
      if (token) reply.header('set-cookie', expiredSessionCookie(deps.secureCookies));
      reply.send();
    }
    return session;
  };
  /** A change by a signed-in user: the session, or null when it was answered (signed out, CSRF refused). */
  const change = async (request: FastifyRequest, reply: FastifyReply): Promise<ConsoleSession | null> => {
    const session = await signedIn(request, reply);
    if (!session) return null;
    if (!tokensMatch((request.body as Form | undefined)?.csrf, session.csrfToken)) {
      html(reply.code(403), messagePage('Refused', 'The form was stale or not the console’s: reload the page and try again.', pageUser(session)));
      return null;
    }
    return session;
  };
  const startSession = async (reply: FastifyReply, userId: string) => {
    const { token } = await deps.accounts.createSession(userId, deps.clock());
    reply.header('set-cookie', sessionCookie(token, deps.secureCookies, Math.floor(limits.absoluteMs / 1000)));
  };

  app.get('/assets/console.css', async (_request, reply) => reply.type('text/css; charset=utf-8').send(CONSOLE_CSS));
  app.get('/assets/console.js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(CONSOLE_JS));
  app.get('/', async (_request, reply) => reply.code(303).header('location', '/keys').send());
  // Browsers ask for it on every page: no icon, and no 404 in their console.
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).send());

  app.get('/sign-in', async (_request, reply) => html(reply, signInPage('', null)));
  app.post('/sign-in', async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const email = (form.email ?? '').trim().toLowerCase();
    const password = form.password ?? '';
    const waitMs = throttle.take(request.ip);
    if (waitMs > 0) {
      return html(reply.code(429).header('retry-after', String(Math.ceil(waitMs / 1000))), signInPage(email, tooMany(waitMs, 'from this address')));
    }
    const record = email ? await deps.accounts.signInRecord(email) : null;
    const now = deps.clock();
    if (record?.lockedUntilMs != null && record.lockedUntilMs > now) {
      return html(reply.code(429), signInPage(email, tooMany(record.lockedUntilMs - now, 'on this account after repeated failures')));
    }
    // An unknown email takes as long as a wrong password: the answer does not say which accounts exist.
    const matches = await verifyPassword(password, record?.passwordHash ?? UNKNOWN_ACCOUNT_HASH);
    if (!record || !matches) {
      const lockedUntil = record ? await deps.accounts.recordFailedSignIn(record.id, now, limits.lockAfter, limits.lockMs) : null;
      if (lockedUntil !== null) return html(reply.code(429), signInPage(email, tooMany(lockedUntil - now, 'on this account after repeated failures')));
      return html(reply.code(401), signInPage(email, { kind: 'error', text: 'The email or the password is not right.' }));
    }
    await deps.accounts.recordSignIn(record.id);
    // A new session whatever cookie came with the request: none chosen by someone else is ever adopted.
    const previous = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (previous) await deps.accounts.endSession(previous);
    await startSession(reply, record.id);
    request.log.info({ audit: 'signed_in', userId: record.id, tenantId: record.tenant }, 'console audit');
    return reply.code(303).header('location', '/keys').send();
  });

  app.get('/invite/:token', async (request, reply) => {
    const { token } = request.params as { token: string };
    const invite = await deps.accounts.findInvite(token, deps.clock());
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
    const invite = await deps.accounts.findInvite(token, deps.clock());
    if (!invite)
      return html(
        reply.code(404),
        messagePage('Invite not valid', 'This invite link was used already, has expired, or does not exist. Ask your operator for a new one.'),
      );
    const password = form.password ?? '';
    const problem = password !== (form.repeat ?? '') ? 'the two passwords differ' : passwordProblem(password, invite.email);
    if (problem) return html(reply.code(422), invitePage(token, invite.email, invite.tenant, { kind: 'error', text: `Not set: ${problem}.` }));
    const user = await deps.accounts.acceptInvite(token, await hashPassword(password), deps.clock());
    if (!user) return html(reply.code(404), messagePage('Invite not valid', 'This invite link was used already or has expired.'));
    await startSession(reply, user.id);
    request.log.info({ audit: 'password_set', userId: user.id, tenantId: user.tenant }, 'console audit');
    return reply.code(303).header('location', '/keys').send();
  });

  app.post('/sign-out', async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    await deps.accounts.endSession(cookieValue(request.headers.cookie, SESSION_COOKIE) ?? '');
    audit(request, session, 'signed_out');
    return reply.code(303).header('set-cookie', expiredSessionCookie(deps.secureCookies)).header('location', '/sign-in').send();
  });

  // Every session of the account ends, this one included (a lost laptop, a shared machine).
  app.post('/sign-out-everywhere', async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const ended = await deps.accounts.endAllSessions(session.user.id);
    audit(request, session, 'signed_out_everywhere', { sessions: String(ended) });
    return reply.code(303).header('set-cookie', expiredSessionCookie(deps.secureCookies)).header('location', '/sign-in').send();
  });

  app.get('/keys', async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    return html(reply, keysPage(pageUser(session), await deps.keys.list(session.user.tenant), null, null));
  });
  app.post('/keys', async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const tenantKeys = await deps.keys.list(session.user.tenant);
    const created = await deps.keys.create(newKeyTerms(session.user.tenant, tenantKeys));
    audit(request, session, 'key_created', { keyId: created.record.id });
    const shown: CreatedKey = { id: created.record.id, key: created.key };
    return html(
      reply.code(201),
      keysPage(pageUser(session), [...tenantKeys, created.record], shown, { kind: 'ok', text: `Key ${created.record.id} created.` }),
    );
  });
  app.post('/keys/:id/revoke', async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    const key = await deps.keys.get(id);
    // Another tenant's key is answered as an unknown one.
    if (!key || key.tenant !== session.user.tenant) {
      return html(reply.code(404), keysPage(pageUser(session), await deps.keys.list(session.user.tenant), null, { kind: 'error', text: 'No such key.' }));
    }
    await deps.revokeKey(id);
    audit(request, session, 'key_revoked', { keyId: id });
    const notice: Notice = { kind: 'ok', text: `Key ${id} revoked: it is refused everywhere from now on.` };
    return html(reply, keysPage(pageUser(session), await deps.keys.list(session.user.tenant), null, notice));
  });
  // A key's result retention (1-72 h) and default language: the API reads the key on every request, so
  // the next job or answer follows at once.
  app.post('/keys/:id/settings', async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    const key = await deps.keys.get(id);
    const list = async () => deps.keys.list(session.user.tenant);
    if (!key || key.tenant !== session.user.tenant || key.revokedAt !== null) {
      return html(reply.code(404), keysPage(pageUser(session), await list(), null, { kind: 'error', text: 'No such key.' }));
    }
    const retention = Number(form.retention_hours);
    const language = (form.default_language ?? '').trim();
    try {
      await deps.keys.update(id, { retentionHours: retention, defaultLanguage: language === '' ? null : language });
    } catch (error) {
      if (!isKeyStoreError(error) || error.code !== 'invalid_argument') throw error;
      return html(reply.code(422), keysPage(pageUser(session), await list(), null, { kind: 'error', text: `Not saved: ${error.message}.` }));
    }
    audit(request, session, 'key_settings_changed', { keyId: id });
    return html(reply, keysPage(pageUser(session), await list(), null, { kind: 'ok', text: `Key ${id} saved: the API follows it from now on.` }));
  });
  app.setNotFoundHandler(async (_request, reply) => html(reply.code(404), messagePage('Not found', 'There is no such page.')));
  return app;
}

function html(reply: FastifyReply, page: string): FastifyReply {
  return reply.type('text/html; charset=utf-8').send(page);
}

function tooMany(waitMs: number, where: string): Notice {
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
  return { kind: 'error', text: `Too many sign-in attempts ${where}: try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` };
}

/**
 * A key made in the console takes the plan and entitlements the operator gave the tenant's oldest
 * active key (a console user cannot grant themselves more), else the defaults.
 */
function newKeyTerms(tenant: string, keys: readonly ApiKeyRecord[]) {
  const model = keys.find((k) => k.revokedAt === null);
  return { tenant, plan: model?.plan ?? DEFAULT_PLAN, entitlements: model ? [...model.entitlements] : [...DEFAULT_ENTITLEMENTS] };
}
