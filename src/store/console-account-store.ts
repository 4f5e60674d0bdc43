// The developer console's accounts (issue: developer console): people of one tenant who sign in to
// manage its keys, secrets, retention and usage. An operator invites one (a one-time token valid for
// a day, shown once); the invitee sets a password; sign-ins open sessions. Tokens of invites and
// sessions are stored as SHA-256 hashes only (what the database holds cannot be replayed), passwords as
// the hash the caller made (src/console/password-hash.ts: scrypt); an email is one account, in one tenant.

export interface ConsoleUser {
  id: string;
  tenant: string;
  /** Lower-cased as given to the invite. */
  email: string;
  createdAtMs: number;
}

/** A user as sign-in needs it: the password hash and where the lockout stands. */
export interface ConsoleSignInRecord extends ConsoleUser {
  passwordHash: string;
  /** Failed sign-ins since the last success or lockout. */
  failedSignIns: number;
  /** Locked until then (ms), or null. */
  lockedUntilMs: number | null;
}

export interface ConsoleInvite {
  tenant: string;
  email: string;
  expiresAtMs: number;
}

export interface ConsoleSession {
  user: ConsoleUser;
  /** The session's CSRF token: every change the session makes must carry it. */
  csrfToken: string;
  createdAtMs: number;
}

/** What the console's sweep deleted (ConsoleAccountStore.deleteEnded). */
export interface EndedConsoleRecords {
  invites: number;
  sessions: number;
  signInWindows: number;
  /** (email subject, address) pairs whose wrong passwords and lock have ended. */
  passwordFailures: number;
}

/** The window sign-in attempts from one address are counted in (countSignInAttempt). */
export const SIGN_IN_WINDOW_MS = 60_000;

/** An address's sign-in attempts in its current window, this one included. */
export interface SignInAttempts {
  windowStartMs: number;
  attempts: number;
}

export interface SessionLimits {
  /** A session not used for this long has ended. */
  idleMs: number;
  /** A session ends this long after sign-in, used or not. */
  absoluteMs: number;
}

export interface ConsoleAccountStore {
  /**
   * A one-time invite for `email` to `tenant`, valid for `ttlMs`: its token (returned once, stored
   * hashed). Inviting an email again replaces its unused invite; an email with an account in another
   * tenant is refused (ConsoleAccountError 'email_taken').
   */
  createInvite(tenant: string, email: string, nowMs: number, ttlMs: number): Promise<{ token: string; expiresAtMs: number }>;
  /** The invite `token` opens: unused and unexpired; else null. */
  findInvite(token: string, nowMs: number): Promise<ConsoleInvite | null>;
  /**
   * Uses the invite, once: creates the account with `passwordHash` (or sets the password of the
   * email's account in the same tenant, a reset by invite), ends that account's sessions, and returns
   * it; null when the invite is unknown, used or expired (two racing uses: one wins).
   */
  acceptInvite(token: string, passwordHash: string, nowMs: number): Promise<ConsoleUser | null>;
  /** The account of `email` (any case) for a sign-in, or null. */
  signInRecord(email: string): Promise<ConsoleSignInRecord | null>;
  /**
   * Counts a failure of someone past the password (a wrong code at sign-in) or holding a session (a
   * wrong password or code on the account page); at `lockAfter` failures in a row the account is
   * locked for `lockMs` and the count starts again. Returns when it is locked until (null: not
   * locked). Wrong passwords at sign-in are recordFailedPassword's: they lock no account.
   */
  recordFailedSignIn(userId: string, nowMs: number, lockAfter: number, lockMs: number): Promise<number | null>;
  /** A successful sign-in clears the failures. */
  recordSignIn(userId: string): Promise<void>;
  /** Opens a session for the user: its token (returned once, stored hashed) and its CSRF token. */
  createSession(userId: string, nowMs: number): Promise<{ token: string; csrfToken: string }>;
  /** The session `token` opens, within its limits (its last use is moved to now), or null. */
  session(token: string, nowMs: number, limits: SessionLimits): Promise<ConsoleSession | null>;
  /** Ends one session (sign-out); nothing when it is gone. */
  endSession(token: string): Promise<void>;
  /** Ends every session of the user (sign-out everywhere): how many. */
  endAllSessions(userId: string): Promise<number>;
  /**
   * Ends every session of the user but the one `keptToken` opens (the account was just secured, as by
   * turning TOTP on, from that session): how many. A token that is not one of the user's keeps nothing.
   */
  endOtherSessions(userId: string, keptToken: string): Promise<number>;
  /**
   * Counts a sign-in attempt from a client address, for every process on the database alike: its
   * window (SIGN_IN_WINDOW_MS from its first attempt) and the attempts in it, this one included. An
   * attempt after the window opens a new one. One statement: racing attempts are each counted.
   */
  countSignInAttempt(address: string, nowMs: number): Promise<SignInAttempts>;
  /**
   * Counts a wrong password given for `subject` (an opaque digest of the email typed, whether an
   * account has it or not) from `address`: at `lockAfter` failures the pair is locked for `lockMs`
   * and its count starts again; failures are forgotten `lockMs` after the last one. Returns when the
   * pair is locked until (null: not locked). Only the pair is locked: the same email from another
   * address, and the account itself, are not. One statement: racing failures are each counted.
   */
  recordFailedPassword(subject: string, address: string, nowMs: number, lockAfter: number, lockMs: number): Promise<number | null>;
  /** When the pair is locked until at `nowMs` (null: not locked). */
  passwordLockedUntil(subject: string, address: string, nowMs: number): Promise<number | null>;
  /** A right password clears the pair's failures. */
  clearFailedPasswords(subject: string, address: string): Promise<void>;
  /**
   * Deletes what can no longer open anything at `nowMs`: invites used or expired, sessions past
   * `limits` (the very test `session` applies), sign-in windows that have ended, password failures
   * whose pair has ended. Unused unexpired invites, live sessions, current windows and pairs stay.
   */
  deleteEnded(nowMs: number, limits: SessionLimits): Promise<EndedConsoleRecords>;
  /** The tenant's accounts, oldest first. */
  listUsers(tenant: string): Promise<ConsoleUser[]>;
}

export type ConsoleAccountErrorKind = 'email_taken' | 'invalid_email';

export class ConsoleAccountError extends Error {
  constructor(
    readonly kind: ConsoleAccountErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'ConsoleAccountError';
  }
}
