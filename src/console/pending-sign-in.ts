// A sign-in whose password was right and whose second factor is still to come: not a session (no
// page opens with it), only the code form. Its token travels in a cookie of its own, HttpOnly,
// SameSite=Strict and scoped to /sign-in (no other path ever receives it), for a few minutes.
import { cookieValue } from './console-http.js';

export const PENDING_SIGN_IN_COOKIE = 'svc_console_pending';
/** Long enough to open an authenticator app and type a code or two; short enough to be of little use to anyone else. */
export const PENDING_SIGN_IN_MS = 5 * 60_000;

export function pendingSignInCookie(token: string, secure: boolean, maxAgeSeconds: number = PENDING_SIGN_IN_MS / 1000): string {
  return [`${PENDING_SIGN_IN_COOKIE}=${token}`, 'Path=/sign-in', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`, ...(secure ? ['Secure'] : [])].join(
    '; ',
  );
}

export function expiredPendingSignInCookie(secure: boolean): string {
  return pendingSignInCookie('', secure, 0);
}

export function pendingSignInToken(cookieHeader: string | undefined): string | null {
  return cookieValue(cookieHeader, PENDING_SIGN_IN_COOKIE);
}
