// What a change did, carried across its redirect (post/redirect/get): a change answers 303 to its
// page's address, so a reload shows the page instead of posting again or landing on a 404. The
// outcome (the notice, and what is shown only this once: a new key, a signing secret, recovery codes)
// rides in a one-time cookie, sealed (AES-256-GCM) under a key derived from the session's own token
// and bound to the page it is for: no other session, and no other page, can open it. Nothing is
// kept on the server, so it works whichever process answers the GET. The page that opens it clears it.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

import { cookieValue } from './console-http.js';
import type { Notice } from './console-layout.js';

export const FLASH_COOKIE = 'svc_console_flash';
/** Long enough for the browser to follow the redirect; after that it is of no use. */
const FLASH_SECONDS = 60;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A change's outcome: its notice, and what its page shows this once (each page reads its own shape). */
export interface Flash<Shown = unknown> {
  notice: Notice;
  shown?: Shown;
}

function flashKey(sessionToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', sessionToken, '', 'svc-stt console flash', 32));
}

export function flashCookie(value: string, secure: boolean, maxAgeSeconds: number = FLASH_SECONDS): string {
  return [`${FLASH_COOKIE}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`, ...(secure ? ['Secure'] : [])].join('; ');
}

/** The cookie's value: the flash sealed for the session and the page (`path`). */
export function sealFlash(sessionToken: string, path: string, flash: Flash): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', flashKey(sessionToken), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(path, 'utf8'));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(flash), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The flash in the request's cookie for this session and page, or null (none, another's, another page's, damaged). */
export function openFlash(cookieHeader: string | undefined, sessionToken: string, path: string): Flash | null {
  const value = cookieValue(cookieHeader, FLASH_COOKIE);
  if (!value) return null;
  const bytes = Buffer.from(value, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', flashKey(sessionToken), bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(path, 'utf8'));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as Flash;
  } catch {
    return null;
  }
}
