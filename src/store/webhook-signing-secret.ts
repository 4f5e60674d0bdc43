// The webhook signing secret format shared with receivers (contract "Webhook" rule 4):
// `whsec_` + base64 of the HMAC key. Standard Webhooks / Svix libraries take it as is. Here in the
// store, which generates each version inside the transaction that numbers it.
import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
const KEY_BYTES = 32;
// The contract allows keys of 24 to 64 bytes; ours are always 32.
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A new secret: `whsec_` + base64 of 32 random bytes (the contract allows 24 to 64). */
export function generateSigningSecret(): { secret: string; key: Buffer } {
  const key = randomBytes(KEY_BYTES);
  return { secret: `${PREFIX}${key.toString('base64')}`, key };
}

/** The HMAC key of a `whsec_` secret (base64-decoded after the prefix); throws on a malformed one. */
export function signingKeyOf(secret: string): Buffer {
  // The messages never echo the value: it is a secret, even when malformed.
  if (typeof secret !== 'string' || !secret.startsWith(PREFIX)) throw new Error('a webhook signing secret starts with whsec_');
  const encoded = secret.slice(PREFIX.length);
  if (!BASE64.test(encoded)) throw new Error('a webhook signing secret is whsec_ followed by base64');
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new Error(`a webhook signing secret holds ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes`);
  }
  return key;
}
