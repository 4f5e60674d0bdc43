// The pure half of a RealtimeClientSecretStore (realtime-client-secret-store.ts): the row, the secret's
// format and its hash. No database here.
//
// A secret is `ek_` (OpenAI's prefix for its realtime client secrets, so a log reader or a secret
// scanner knows one) and 32 random bytes in base64url (43 characters): 256 random bits need no slow
// hash, and a leaked table yields nothing usable.
import { randomBytes } from 'node:crypto';

import { storedTokenDigest } from './token-digest.js';

export const CLIENT_SECRET_PREFIX = 'ek_';
const SECRET_BYTES = 32;
const PRESENTED = /^ek_([A-Za-z0-9_-]{43})$/;

/** A row of `realtime_client_secrets`. */
export interface RealtimeClientSecretRow {
  secret_sha256: Buffer;
  key_id: string;
  expires_at_ms: number;
  /** When a realtime start used it; null while unused. */
  used_at_ms: number | null;
  created_at_ms: number;
}

/** A fresh secret to show once, and the hash to store. */
export function newClientSecret(): { secret: string; sha256: Buffer } {
  const random = randomBytes(SECRET_BYTES).toString('base64url');
  return { secret: `${CLIENT_SECRET_PREFIX}${random}`, sha256: storedTokenDigest(random) };
}

/** The stored hash of a presented secret; null when it is not shaped like one of ours (nothing can match it). */
export function presentedClientSecretSha256(presented: string): Buffer | null {
  const match = typeof presented === 'string' ? PRESENTED.exec(presented) : null;
  return match ? storedTokenDigest(match[1]) : null;
}
