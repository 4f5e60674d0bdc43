// The console's HTTP rules, in one place: the headers every page carries (a CSP with no inline
// script or style and no origin but its own, no framing, no caching, no referrer), the session
// cookie's flags, and the checks every change passes (same origin; the session's CSRF token).
import { timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'svc_console_session';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  // Not no-referrer: with it a browser sends `Origin: null` on the console's own form posts.
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * The playground's CSP: the console's, and no wider than its pages need. `media-src blob:` plays the
 * file chosen in the page (never sent back by the server); `connect-src` adds the realtime
 * listener's origin, exactly, for the microphone's stream.
 */
export function playgroundContentSecurityPolicy(realtimeUrl: string | null): string {
  const realtime = realtimeUrl === null ? '' : ` ${new URL(realtimeUrl).origin}`;
  return SECURITY_HEADERS['content-security-policy'].replace("connect-src 'self'", `connect-src 'self'${realtime}; media-src blob:`);
}

/** The value of one cookie of a Cookie header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

/** The session cookie: HttpOnly, SameSite=Strict, Secure unless the console is served on loopback over plain HTTP. */
export function sessionCookie(token: string, secure: boolean, maxAgeSeconds: number): string {
  return [`${SESSION_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`, ...(secure ? ['Secure'] : [])].join('; ');
}

export function expiredSessionCookie(secure: boolean): string {
  return sessionCookie('', secure, 0);
}

/** Whether a state-changing request comes from the console's own pages (Fetch Metadata, then Origin). */
export function sameOrigin(headers: Record<string, string | string[] | undefined>): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = headers.origin;
  if (origin === undefined || origin === 'null') return origin === undefined;
  const host = headers.host;
  return typeof origin === 'string' && typeof host === 'string' && (origin === `http://${host}` || origin === `https://${host}`);
}

export function tokensMatch(sent: unknown, expected: string): boolean {
  if (typeof sent !== 'string') return false;
  // Compared as bytes, whose lengths must agree (timingSafeEqual throws otherwise): a token of the
  // right length in characters but not in bytes (non-ASCII) is a wrong token, not a failure.
  const [a, b] = [Buffer.from(sent), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
