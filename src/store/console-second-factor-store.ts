// The console's second factor (issue 32): per account, a TOTP secret (RFC 6238) that an account turns
// on by typing a current code, the steps already used (a code is good once), one-time recovery codes;
// per tenant, whether the operator requires it; and the sign-ins that passed the password and wait for
// a code (not sessions: they open no page). The secret is kept sealed (AES-256-GCM under a key derived
// from the server's master key, bound to its account), recovery codes and pending sign-in tokens as
// their SHA-256 only.
import type { ConsoleUser } from './console-account-store.js';

export interface TotpEnrolment {
  /** The shared secret, opened. */
  secret: Buffer;
  /** When a code confirmed it and it took effect; null while it waits for that code. */
  confirmedAtMs: number | null;
}

export interface ConsoleSecondFactorStore {
  /** Seals every TOTP secret that opens only under a previous master key again under the active one (a rotation); returns how many. */
  resealUnderActiveKey(): Promise<number>;
  /** The account's TOTP secret, in effect or waiting for its confirming code; null when it has none. */
  totp(userId: string): Promise<TotpEnrolment | null>;
  /** Whether the account has TOTP in effect (nothing is opened: cheap enough for every page). */
  totpEnabled(userId: string): Promise<boolean>;
  /**
   * Keeps `secret` sealed as the account's new TOTP secret, waiting for a confirming code (it replaces
   * one that was waiting). Refused (ConsoleSecondFactorError 'totp_enabled') while one is in effect.
   */
  beginTotp(userId: string, secret: Buffer, nowMs: number): Promise<void>;
  /**
   * Puts the waiting secret in effect: its code of `step` was typed, and that step counts as used.
   * False when none was waiting (already confirmed, or never begun).
   */
  confirmTotp(userId: string, step: number, nowMs: number): Promise<boolean>;
  /**
   * Records a code of `step` as used by the account's secret in effect: true when the step is later
   * than every step used before; false for a replay (or an older step), or without a secret in effect.
   * One conditional write: of two racing uses of one code, one wins.
   */
  useTotpStep(userId: string, step: number): Promise<boolean>;
  /** Removes the account's TOTP secret (in effect or waiting) and its recovery codes: whether it had one. */
  removeTotp(userId: string): Promise<boolean>;
  /** `count` new one-time recovery codes for the account (shown once, stored hashed), replacing its earlier ones. */
  replaceRecoveryCodes(userId: string, count: number, nowMs: number): Promise<string[]>;
  /** Uses one recovery code (any case; spaces and dashes ignored): true once per code. */
  useRecoveryCode(userId: string, code: string, nowMs: number): Promise<boolean>;
  /** How many of the account's recovery codes are unused. */
  recoveryCodesLeft(userId: string): Promise<number>;
  /** A sign-in waiting for its second factor, for `ttlMs`: its token (returned once, stored hashed). Expired ones are swept. */
  createPendingSignIn(userId: string, nowMs: number, ttlMs: number): Promise<string>;
  /** The account whose sign-in `token` waits for a code (unexpired), or null. */
  pendingSignIn(token: string, nowMs: number): Promise<ConsoleUser | null>;
  /** Ends a pending sign-in (its code was typed, or it was locked out); nothing when it is gone. */
  endPendingSignIn(token: string): Promise<void>;
  /** Deletes the pending sign-ins expired by `nowMs` (the sweeper's, and each createPendingSignIn's): how many. */
  deleteExpiredPendingSignIns(nowMs: number): Promise<number>;
  /** Whether the tenant's accounts must have TOTP in effect before any page (the operator's setting; off by default). */
  totpRequired(tenant: string): Promise<boolean>;
  setTotpRequired(tenant: string, required: boolean, nowMs: number): Promise<void>;
}

export type ConsoleSecondFactorErrorKind = 'totp_enabled' | 'unreadable';

export class ConsoleSecondFactorError extends Error {
  constructor(
    readonly kind: ConsoleSecondFactorErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'ConsoleSecondFactorError';
  }
}
