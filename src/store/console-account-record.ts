// The pure half of a ConsoleAccountStore (console-account-store.ts): the rows of its tables,
// email normalization and the invalid_email refusal, tokens and their hashes, row -> record mapping.
// No database here.
//
// Invite and session tokens are 32 random bytes, base64url (43 characters), shown once; only their
// SHA-256 is stored (256 random bits need no slow hash, and a leaked database opens nothing). A
// session's CSRF token is stored in clear: it is not a credential on its own (a request must carry
// the session token too), and the console hands it to the page it serves.
import { randomBytes } from 'node:crypto';

import { ConsoleAccountError, type ConsoleSignInRecord, type ConsoleUser } from './console-account-store.js';
import { randomBase62 } from './random-id.js';
import { storedTokenDigest } from './token-digest.js';

/** A row of `console_users`; the email is stored trimmed and lower-cased. */
export interface ConsoleUserRow {
  id: string;
  tenant: string;
  email: string;
  password_hash: string;
  failed_sign_ins: number;
  locked_until_ms: number | null;
  created_at_ms: number;
}

/** A row of `console_invites`: at most one unused (used_at_ms null) per email. */
export interface ConsoleInviteRow {
  token_sha256: Buffer;
  tenant: string;
  email: string;
  expires_at_ms: number;
  used_at_ms: number | null;
  created_at_ms: number;
}

/** A row of `console_sessions`. */
export interface ConsoleSessionRow {
  token_sha256: Buffer;
  user_id: string;
  /** In clear: see the top of this file. */
  csrf_token: string;
  created_at_ms: number;
  last_seen_ms: number;
}

/** A row of `console_sign_in_attempts`: one client address's current window and the attempts in it. */
export interface ConsoleSignInAttemptRow {
  address: string;
  window_start_ms: number;
  attempts: number;
}

/**
 * A row of `console_password_failures`: wrong passwords for one email subject (a digest of the email
 * given, an account's or not) from one client address, the lock they set, and when the row ends
 * (`lockMs` after its last failure or lock; the sweeper deletes it then).
 */
export interface ConsolePasswordFailureRow {
  subject: string;
  address: string;
  failures: number;
  locked_until_ms: number | null;
  ends_at_ms: number;
}

const TOKEN_BYTES = 32;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const USER_ID_LENGTH = 16;
const MAX_EMAIL_LENGTH = 254;
/** Whitespace, control and format (bidirectional, zero-width) characters: never in an address we accept. */
const NOT_IN_EMAIL = /[\s\p{Cc}\p{Cf}]/u;

/** `email` trimmed and lower-cased; throws ConsoleAccountError('invalid_email') when it is obviously not an address. */
export function normalizeEmail(email: string): string {
  const trimmed = typeof email === 'string' ? email.trim() : '';
  const parts = trimmed.split('@');
  const valid = [...trimmed].length <= MAX_EMAIL_LENGTH && parts.length === 2 && parts[0] !== '' && parts[1] !== '' && !NOT_IN_EMAIL.test(trimmed);
  if (!valid) throw new ConsoleAccountError('invalid_email', `not an email address: one '@', at most ${MAX_EMAIL_LENGTH} characters, no spaces`);
  return trimmed.toLowerCase();
}

/** The normalized email, or null where normalizeEmail would refuse it (no account can have it). */
export function emailOrNull(email: string): string | null {
  try {
    return normalizeEmail(email);
  } catch {
    return null;
  }
}

/** A fresh token to show once, and the hash to store. */
export function newToken(): { token: string; sha256: Buffer } {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, sha256: storedTokenDigest(token) };
}

/** A fresh CSRF token (stored in clear). */
export function newCsrfToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** The stored hash of a presented token; null when it is not shaped like one of ours (nothing can match it). */
export function presentedTokenSha256(token: string): Buffer | null {
  return typeof token === 'string' && TOKEN.test(token) ? storedTokenDigest(token) : null;
}

export function newConsoleUserId(): string {
  return `cu_${randomBase62(USER_ID_LENGTH)}`;
}

export function consoleUserOf(row: Pick<ConsoleUserRow, 'id' | 'tenant' | 'email' | 'created_at_ms'>): ConsoleUser {
  return { id: row.id, tenant: row.tenant, email: row.email, createdAtMs: row.created_at_ms };
}

export function signInRecordOf(row: ConsoleUserRow): ConsoleSignInRecord {
  return { ...consoleUserOf(row), passwordHash: row.password_hash, failedSignIns: row.failed_sign_ins, lockedUntilMs: row.locked_until_ms };
}

export function emailTaken(): ConsoleAccountError {
  return new ConsoleAccountError('email_taken', 'this email already has a console account in another tenant');
}
