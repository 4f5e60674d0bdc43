// The API key format: `svc_<id>_<secret>`.
//   id      12 base62 characters; the key's public id is `key_<id>` (listings, revoke, dictionaries),
//           so an operator can name a key without holding it, and the server finds the row by it.
//   secret  32 random bytes, base64url (43 characters, may itself contain `_` and `-`).
// Only SHA-256 of the secret is stored: 256 random bits need no slow hash, and a leaked database
// yields no usable key.
import { randomBytes } from 'node:crypto';

import { randomBase62 } from './random-id.js';
import { storedTokenDigest } from './token-digest.js';

export const KEY_PREFIX = 'svc_';
export const KEY_ID_PREFIX = 'key_';
const ID_LENGTH = 12;
const SECRET_BYTES = 32;

const PRESENTED_KEY = /^svc_([0-9A-Za-z]{12})_([A-Za-z0-9_-]{43})$/;
const PUBLIC_ID = /^key_[0-9A-Za-z]{12}$/;

export interface NewKeySecret {
  /** What the client sends as its bearer token; shown once. */
  key: string;
  /** Public id, `key_...`. */
  id: string;
  secretSha256: Buffer;
}

export interface PresentedKey {
  id: string;
  secretSha256: Buffer;
}

export function generateKeySecret(): NewKeySecret {
  const shortId = randomBase62(ID_LENGTH);
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  return { key: `${KEY_PREFIX}${shortId}_${secret}`, id: `${KEY_ID_PREFIX}${shortId}`, secretSha256: storedTokenDigest(secret) };
}

/** Splits a presented bearer token; null when it is not shaped like one of our keys. */
export function parsePresentedKey(presented: string): PresentedKey | null {
  const match = PRESENTED_KEY.exec(presented);
  if (!match) return null;
  return { id: `${KEY_ID_PREFIX}${match[1]}`, secretSha256: storedTokenDigest(match[2]) };
}

export function isPublicKeyId(value: string): boolean {
  return PUBLIC_ID.test(value);
}
