// The pure half of a WebhookSecretStore, shared by its implementations: sealing a new version,
// opening one while it may sign (and which may sign at once), the summaries, the 24-hour overlap of a rotation, and the refusals'
// wording (the CLI prints them as is). No database here.
import { namedKeyId } from './key-record.js';
import { openSecretUnderAny, type SealedSecret, sealSecret } from './secret-cipher.js';
import { SECRET_ROTATION_OVERLAP_MS, WebhookSecretError, type WebhookSecretSummary } from './webhook-secret-store.js';
import { generateSigningSecret } from './webhook-signing-secret.js';

/** A row of `webhook_secrets` (without its key id). Active while superseded_at_ms is null; a revocation sets both. */
export interface SecretRow {
  version: number;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
  created_at_ms: number;
  superseded_at_ms: number | null;
  usable_until_ms: number | null;
  revoked_at_ms: number | null;
}

export type SecretSummaryRow = Omit<SecretRow, 'ciphertext' | 'iv' | 'auth_tag'>;

/** A fresh secret for (keyId, version), sealed for its row; `secret` is shown once and never stored. */
export function sealNewVersion(masterKey: Buffer, keyId: string, version: number): { secret: string; sealed: SealedSecret } {
  const { secret, key } = generateSigningSecret();
  try {
    return { secret, sealed: sealSecret(masterKey, rowLabel(keyId, version), key) };
  } finally {
    key.fill(0);
  }
}

/**
 * The HMAC key of a stored version while it may sign; null after its deadline. `masterKeys`: the active
 * one first, then previous ones (a master key rotation). Throws WebhookSecretError when none opens it.
 */
export function openSigningKey(masterKeys: readonly Buffer[], keyId: string, row: SecretRow, nowMs: number): Buffer | null {
  if (!maySign(row, nowMs)) return null;
  return openSecretUnderAny(masterKeys, rowLabel(keyId, row.version), sealedOf(row)).plain;
}

/**
 * The row sealed again under `masterKeys[0]` when it opens only under a previous key; null when it is
 * sealed under the active key already (nothing to do). Throws WebhookSecretError when none opens it.
 */
export function resealedUnderActive(masterKeys: readonly Buffer[], keyId: string, row: SecretRow): SealedSecret | null {
  const label = rowLabel(keyId, row.version);
  const { plain, keyIndex } = openSecretUnderAny(masterKeys, label, sealedOf(row));
  try {
    return keyIndex === 0 ? null : sealSecret(masterKeys[0]!, label, plain);
  } finally {
    plain.fill(0);
  }
}

function sealedOf(row: Pick<SecretRow, 'ciphertext' | 'iv' | 'auth_tag'>): SealedSecret {
  return { ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag };
}

/** Whether a version may sign at nowMs: not revoked, and active or superseded and not yet past its deadline. */
export function maySign(row: Pick<SecretRow, 'usable_until_ms' | 'revoked_at_ms'>, nowMs: number): boolean {
  return row.revoked_at_ms === null && (row.usable_until_ms === null || mayStillSign(row.usable_until_ms, nowMs));
}

/** The order a header lists its signatures in: the active version first, then the newest superseded ones. */
export function signingOrder(a: Pick<SecretRow, 'version' | 'usable_until_ms'>, b: Pick<SecretRow, 'version' | 'usable_until_ms'>): number {
  const activeFirst = Number(a.usable_until_ms !== null) - Number(b.usable_until_ms !== null);
  return activeFirst !== 0 ? activeFirst : b.version - a.version;
}

/** What a rotation stamps on the version it supersedes: its own deadline, which later rotations never move. */
export function supersededAt(nowMs: number): { supersededAtMs: number; usableUntilMs: number } {
  return { supersededAtMs: nowMs, usableUntilMs: nowMs + SECRET_ROTATION_OVERLAP_MS };
}

export function secretSummaryOf(row: SecretSummaryRow, nowMs: number): WebhookSecretSummary {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const state =
    row.revoked_at_ms !== null ? 'revoked' : row.usable_until_ms === null ? 'active' : mayStillSign(row.usable_until_ms, nowMs) ? 'previous' : 'expired';
  return { version: row.version, createdAt: iso(row.created_at_ms)!, state, usableUntil: iso(row.usable_until_ms), revokedAt: iso(row.revoked_at_ms) };
}

export const secretRefusal = {
  unknownKey: (keyId: string) => new WebhookSecretError(`no API key with id ${namedKeyId(keyId)}`),
  revokedKey: (keyId: string) => new WebhookSecretError(`API key '${keyId}' is revoked; it cannot get webhook signing secrets`),
  alreadyActive: (keyId: string, version: number) =>
    new WebhookSecretError(`${keyId} already has an active webhook signing secret (version ${version}); use rotate to replace it`),
  nothingToRotate: (keyId: string) => new WebhookSecretError(`${keyId} has no webhook signing secret to rotate; use create`),
  nothingToRevoke: (keyId: string) => new WebhookSecretError(`${keyId} has no webhook signing secret that still signs; nothing to revoke`),
};

/** The deadline is inclusive: a version signs up to and including exactly 24 h after its rotation. */
function mayStillSign(usableUntilMs: number, nowMs: number): boolean {
  return nowMs <= usableUntilMs;
}

/** Bound into each ciphertext as additional data, so it opens only in its own row. */
function rowLabel(keyId: string, version: number): string {
  return `${keyId}:${version}`;
}
