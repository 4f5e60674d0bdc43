// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1 of the 30-second step
// count since the Unix epoch, dynamically truncated to 6 digits, the form every authenticator app
// reads from an otpauth:// URI. A code of the step before or after now is accepted too (a phone's
// clock a little off, a code typed as its step ends); which step matched is returned so the caller
// can refuse a step already used (replay).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOTP_STEP_MS = 30_000;
export const TOTP_DIGITS = 6;
/** Steps either side of now that still match. */
const DRIFT_STEPS = 1;
/** 160 bits: RFC 4226's recommended secret length, and what SHA-1's block makes no weaker. */
const SECRET_BYTES = 20;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function newTotpSecret(): Buffer {
  return randomBytes(SECRET_BYTES);
}

/** The step count of `nowMs`. */
export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / TOTP_STEP_MS);
}

/** The code of `step` (RFC 4226 section 5.3: HMAC, dynamic truncation, `digits` decimal digits, zero-padded). */
export function totpCode(secret: Buffer, step: number, digits: number = TOTP_DIGITS): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', secret).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The step (now, or one either side) whose code `code` is, or null; spaces in what was typed are ignored. */
export function matchingTotpStep(secret: Buffer, code: string, nowMs: number): number | null {
  const typed = Buffer.from(code.replace(/\s+/g, ''));
  if (typed.length !== TOTP_DIGITS) return null;
  const now = totpStep(nowMs);
  let matched: number | null = null;
  // Every candidate is compared (in constant time), so the time taken says nothing of which matched.
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step++) {
    if (timingSafeEqual(typed, Buffer.from(totpCode(secret, step))) && matched === null) matched = step;
  }
  return matched;
}

/** RFC 4648 base32 without padding: how authenticator apps take a secret typed in. */
export function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    // Only the bits not yet written are kept, so `value` never outgrows 13 bits.
    value = ((value & ((1 << bits) - 1)) << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** The bytes of a base32 text (any case, spaces and padding ignored); throws on any other character. */
export function fromBase32(text: string): Buffer {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text.toUpperCase().replace(/[\s=]/g, '')) {
    const digit = BASE32.indexOf(char);
    if (digit < 0) throw new Error(`not a base32 character: ${JSON.stringify(char)}`);
    value = ((value << 5) | digit) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** The Key Uri Format authenticator apps read (Google Authenticator's wiki): issuer, account, secret, and RFC 6238's parameters said outright. */
export function otpauthUri(secret: Buffer, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret: base32(secret), issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_STEP_MS / 1000) });
  return `otpauth://totp/${label}?${query.toString()}`;
}
