// What the stores keep of a random secret shown once (an API key's secret, a realtime client secret, a
// console invite, session or pending sign-in token, a recovery code): its SHA-256, the raw 32 bytes of
// the UTF-8 text. 80 or 256 random bits need no slow hash, and a leaked table opens nothing. The
// databases already hold these digests, so the encoding here may never change.
import { createHash } from 'node:crypto';

/** The digest stored for a secret token, and looked up when one is presented. */
export function storedTokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
