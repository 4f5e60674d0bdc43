// The pure half of a ConsoleSecondFactorStore (console-second-factor-store.ts): the rows of its
// tables, sealing a TOTP secret, recovery codes and their hashes. No database here.
//
// A TOTP secret must be read back to check a code, so it is encrypted, not hashed: AES-256-GCM
// (secret-cipher.ts) under a key HKDF derives from the server's master key for this purpose alone (a
// webhook secret's ciphertext and a TOTP secret's never open under each other's key), with the
// account id as additional data (a row copied to another account fails to open). Recovery codes are
// 80 random bits, so their SHA-256 is enough (no slow hash): a leaked table opens nothing.
import { hkdfSync, randomBytes } from 'node:crypto';

import { ConsoleSecondFactorError } from './console-second-factor-store.js';
import { openSecretUnderAny, sealSecret } from './secret-cipher.js';
import { storedTokenDigest } from './token-digest.js';

/** A row of `console_totp`: one per account that began or turned on TOTP. */
export interface ConsoleTotpRow {
  user_id: string;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
  /** Null while the secret waits for its confirming code. */
  confirmed_at_ms: number | null;
  /** The latest step whose code was accepted (codes of it and before are refused), or null. */
  last_step: number | null;
  created_at_ms: number;
}

/** A row of `console_recovery_codes`. */
export interface ConsoleRecoveryCodeRow {
  user_id: string;
  code_sha256: Buffer;
  used_at_ms: number | null;
  created_at_ms: number;
}

/** A row of `console_pending_sign_ins`: a password accepted, the second factor not yet. */
export interface ConsolePendingSignInRow {
  token_sha256: Buffer;
  user_id: string;
  expires_at_ms: number;
  created_at_ms: number;
}

/** A row of `console_tenant_settings`. */
export interface ConsoleTenantSettingsRow {
  tenant: string;
  /** 1: the tenant's accounts need TOTP in effect; 0: they may choose. */
  totp_required: number;
  updated_at_ms: number;
}

const KEY_BYTES = 32;
const PURPOSE = 'svc-stt console TOTP secrets';
const RECOVERY_CODE_BYTES = 10;
const RECOVERY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const RECOVERY_CODE = /^[a-z2-7]{16}$/;

/** The key that seals TOTP secrets: HKDF-SHA256 of the master key, bound to this purpose. */
export function totpSealingKey(masterKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), PURPOSE, KEY_BYTES));
}

export function sealTotpSecret(sealingKey: Buffer, userId: string, secret: Buffer): Pick<ConsoleTotpRow, 'ciphertext' | 'iv' | 'auth_tag'> {
  const sealed = sealSecret(sealingKey, rowLabel(userId), secret);
  return { ciphertext: sealed.ciphertext, iv: sealed.iv, auth_tag: sealed.authTag };
}

/**
 * The secret of a row, and the index of the sealing key that opened it (`sealingKeys`: the active master
 * key's first, then previous ones of a rotation); throws ConsoleSecondFactorError('unreadable') when none does.
 */
export function openTotpSecret(
  sealingKeys: readonly Buffer[],
  row: Pick<ConsoleTotpRow, 'user_id' | 'ciphertext' | 'iv' | 'auth_tag'>,
): { secret: Buffer; keyIndex: number } {
  try {
    const { plain, keyIndex } = openSecretUnderAny(sealingKeys, rowLabel(row.user_id), { ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag });
    return { secret: plain, keyIndex };
  } catch {
    throw new ConsoleSecondFactorError(
      'unreadable',
      `the TOTP secret of console account ${row.user_id} cannot be decrypted: the master key is not the one it was sealed with ` +
        '(was SVC_WEBHOOK_MASTER_KEY or <data dir>/webhook-master.key changed?), or the stored row is damaged',
    );
  }
}

/** A fresh recovery code, `xxxx-xxxx-xxxx-xxxx` (80 random bits, base32 lower-case), and its hash to store. */
export function newRecoveryCode(): { code: string; sha256: Buffer } {
  const bytes = randomBytes(RECOVERY_CODE_BYTES);
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  const plain = (bits.match(/.{5}/g) ?? []).map((five) => RECOVERY_ALPHABET[parseInt(five, 2)]).join('');
  return { code: plain.match(/.{4}/g)!.join('-'), sha256: storedTokenDigest(plain) };
}

/** The stored hash of a typed recovery code (any case, spaces and dashes ignored), or null when it is not shaped like one. */
export function typedRecoveryCodeSha256(code: string): Buffer | null {
  const plain = typeof code === 'string' ? code.toLowerCase().replace(/[\s-]/g, '') : '';
  return RECOVERY_CODE.test(plain) ? storedTokenDigest(plain) : null;
}

function rowLabel(userId: string): string {
  return `console_totp:${userId}`;
}
