// What every console route needs: the dependencies, the limits, and the checks that come before any
// page (a live session; for a change, also the session's CSRF token), the audit line of a change,
// and the session cookie of a sign-in. Route modules (sign-in, keys, ...) receive one ConsoleContext.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';

import type { KeyRateLimiter } from '../api/rate-limit.js';
import type { TranscribeUploadDeps } from '../application/transcribe-upload-deps.js';
import type { UsageBilling } from '../billing/usage-billing.js';
import type { ConsoleAccountStore, ConsoleSession, SessionLimits } from '../store/console-account-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { KeyUseRecorder } from '../store/key-use-recorder.js';
import type { Stores } from '../store/open-stores.js';
import { type Flash, FLASH_COOKIE, flashCookie, openFlash, sealFlash } from './console-flash.js';
import { cookieValue, expiredSessionCookie, SESSION_COOKIE, sessionCookie, tokensMatch } from './console-http.js';
import { messagePage, type PageUser } from './console-layout.js';
import { SECOND_FACTOR_SETUP_PATH, secondFactorSetupNeeded } from './second-factor-requirement.js';
import { SignInThrottle } from './sign-in-throttle.js';

export interface ConsoleLimits extends SessionLimits {
  /** Failures in a row that lock an account, or an email from an address, and for how long. */
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
  keys: KeyStore;
  /** The stores the tenant's pages read and change besides accounts and keys. */
  stores: Pick<Stores, 'webhookSecrets' | 'outbox' | 'usage' | 'billing' | 'jobs' | 'clientSecrets' | 'consoleSecondFactors'>;
  /** Billing's view of a key (period, terms, standing), as the API applies it. */
  billing: UsageBilling;
  /** The API's transcription use case's deps: the playground transcribes as the chosen key, as the API would. */
  transcription: TranscribeUploadDeps;
  /** The API's per-key request rate: the playground's runs as a key take from the key's bucket, as its API requests do. */
  keyRate: KeyRateLimiter;
  /** The API's recorder of keys' last uses: the playground's runs as a key are uses of it, as its API requests are. */
  keyUse: Pick<KeyUseRecorder, 'record'>;
  /** The realtime listener's URL (ws://host:port) the playground's page streams to; null: no realtime tab. */
  realtimeUrl: string | null;
  /** Revokes a key and closes what it left open (src/jobs/key-revocation.ts). */
  revokeKey(keyId: string): Promise<void>;
  clock: () => number;
  /** Whether the session cookie is Secure (false only on loopback over plain HTTP). */
  secureCookies: boolean;
  logger: FastifyBaseLogger;
  limits?: Partial<ConsoleLimits>;
}

export type Form = Record<string, string>;

export interface SignedInOptions {
  /**
   * Open to an account its tenant requires TOTP of and that has none yet (the account page, where it
   * is turned on, and signing out). Every other page and change sends such an account there first.
   */
  beforeRequiredSecondFactor?: boolean;
}

export interface ConsoleContext {
  deps: ConsoleDeps;
  limits: ConsoleLimits;
  /** The request's live session, if any, without answering: for pages open to everyone that still show who is signed in (404). */
  currentSession(request: FastifyRequest): Promise<ConsoleSession | null>;
  /** The request's live session, or null after answering with a redirect (to sign-in; to the account page while a required TOTP is missing). */
  signedIn(request: FastifyRequest, reply: FastifyReply, options?: SignedInOptions): Promise<ConsoleSession | null>;
  /** A change by a signed-in user: the session, or null when it was answered (signed out, CSRF refused). */
  change(request: FastifyRequest, reply: FastifyReply, options?: SignedInOptions): Promise<ConsoleSession | null>;
  /** One `console audit` line: who, what, which ids (never a secret, key, password or transcript). */
  audit(request: FastifyRequest, session: ConsoleSession, action: string, subject?: Record<string, string | number | Readonly<Record<string, number>>>): void;
  /**
   * One warn-level `console audit` line of a failed or refused credential (a wrong password or code,
   * a lock, the address limit), with the client address: brute force shows in the log. Never the
   * email typed, a password or a code: ids only.
   */
  alert(request: FastifyRequest, action: string, subject: Record<string, string | number | undefined>): void;
  /** Sign-in attempts and credential checks per client address, shared by every process on the database. */
  throttle: SignInThrottle;
  pageUser(session: ConsoleSession): PageUser;
  /** A change done: 303 to its page (`path`), its outcome in a one-time flash only that page of this session opens. */
  done(request: FastifyRequest, reply: FastifyReply, path: string, flash: Flash): FastifyReply;
  /** The flash a change left for this page (`path`), or null; it is cleared either way (one time). */
  flash<Shown>(request: FastifyRequest, reply: FastifyReply, path: string): Flash<Shown> | null;
  /** Opens a new session for the user and sets its cookie on the reply. */
  startSession(reply: FastifyReply, userId: string): Promise<void>;
}

export function consoleContext(deps: ConsoleDeps): ConsoleContext {
  const limits = { ...DEFAULT_CONSOLE_LIMITS, ...deps.limits };
  const pageUser = (session: ConsoleSession): PageUser => ({ email: session.user.email, tenant: session.user.tenant, csrfToken: session.csrfToken });
  const currentSession = async (request: FastifyRequest): Promise<ConsoleSession | null> => {
    const token = cookieValue(request.headers.cookie, SESSION_COOKIE);
    return token ? await deps.accounts.session(token, deps.clock(), limits) : null;
  };
  const signedIn = async (request: FastifyRequest, reply: FastifyReply, options: SignedInOptions = {}): Promise<ConsoleSession | null> => {
    const token = cookieValue(request.headers.cookie, SESSION_COOKIE);
    const session = await currentSession(request);
    if (!session) {
      reply.code(303).header('location', '/sign-in');
      if (token) reply.header('set-cookie', expiredSessionCookie(deps.secureCookies));
      reply.send();
      return null;
    }
    if (!options.beforeRequiredSecondFactor && (await secondFactorSetupNeeded(deps.stores.consoleSecondFactors, session.user))) {
      reply.code(303).header('location', SECOND_FACTOR_SETUP_PATH).send();
      return null;
    }
    return session;
  };
  return {
    deps,
    limits,
    currentSession,
    signedIn,
    pageUser,
    async change(request, reply, options = {}) {
      const session = await signedIn(request, reply, options);
      if (!session) return null;
      if (!tokensMatch((request.body as Form | undefined)?.csrf, session.csrfToken)) {
        html(reply.code(403), messagePage('Refused', 'The form was stale or not the console’s: reload the page and try again.', pageUser(session)));
        return null;
      }
      return session;
    },
    audit(request, session, action, subject = {}) {
      request.log.info({ audit: action, userId: session.user.id, tenantId: session.user.tenant, ...subject }, 'console audit');
    },
    alert(request, action, subject) {
      request.log.warn({ audit: action, address: request.ip, ...subject }, 'console audit');
    },
    done(request, reply, path, flash) {
      const token = cookieValue(request.headers.cookie, SESSION_COOKIE) ?? '';
      return reply
        .code(303)
        .header('location', path)
        .header('set-cookie', flashCookie(sealFlash(token, path, flash), deps.secureCookies))
        .send();
    },
    flash<Shown>(request: FastifyRequest, reply: FastifyReply, path: string) {
      if (cookieValue(request.headers.cookie, FLASH_COOKIE) === null) return null;
      reply.header('set-cookie', flashCookie('', deps.secureCookies, 0));
      return openFlash(request.headers.cookie, cookieValue(request.headers.cookie, SESSION_COOKIE) ?? '', path) as Flash<Shown> | null;
    },
    throttle: new SignInThrottle(deps.accounts, limits.signInsPerMinute, deps.clock),
    async startSession(reply, userId) {
      const { token } = await deps.accounts.createSession(userId, deps.clock());
      reply.header('set-cookie', sessionCookie(token, deps.secureCookies, Math.floor(limits.absoluteMs / 1000)));
    },
  };
}

export function html(reply: FastifyReply, page: string): FastifyReply {
  return reply.type('text/html; charset=utf-8').send(page);
}
