// The console's HTTP rules as functions (src/console/console-http.ts, pending-sign-in.ts): the cookies'
// flags, Secure included (the served tests run on loopback, where it is left off), the same-origin
// check's answers for each Fetch Metadata and Origin a browser (or anything else) may send, and the
// CSRF token comparison.
import t from 'tap';

import { expiredSessionCookie, sameOrigin, sessionCookie, tokensMatch } from '../../src/console/console-http.js';
import { expiredPendingSignInCookie, pendingSignInCookie } from '../../src/console/pending-sign-in.js';

t.test('cookies: HttpOnly, SameSite=Strict, their path and lifetime; Secure when asked', async (t) => {
  t.equal(sessionCookie('tok', true, 43_200), 'svc_console_session=tok; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200; Secure');
  t.equal(sessionCookie('tok', false, 43_200), 'svc_console_session=tok; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200');
  t.equal(expiredSessionCookie(true), 'svc_console_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure');
  t.equal(pendingSignInCookie('tok', true), 'svc_console_pending=tok; Path=/sign-in; HttpOnly; SameSite=Strict; Max-Age=300; Secure');
  t.equal(expiredPendingSignInCookie(true), 'svc_console_pending=; Path=/sign-in; HttpOnly; SameSite=Strict; Max-Age=0; Secure');
});

t.test("sameOrigin: the console's own pages, and requests without browser headers; nothing cross-origin or cross-site", async (t) => {
  const host = 'console.clinic.example';
  const cases: Array<[Record<string, string>, boolean, string]> = [
    [{ host, 'sec-fetch-site': 'same-origin', origin: `https://${host}` }, true, 'a form of its own page'],
    [{ host, origin: `http://${host}` }, true, 'Origin only (no Fetch Metadata)'],
    [{ host, 'sec-fetch-site': 'none' }, true, 'the user, directly'],
    [{ host }, true, 'neither (not a browser: the CSRF token still applies)'],
    [{ host, 'sec-fetch-site': 'same-site', origin: `https://${host}` }, false, 'another site of the same registrable domain'],
    [{ host, 'sec-fetch-site': 'cross-site' }, false, 'a cross-site request'],
    [{ host, origin: 'https://evil.example' }, false, 'another origin'],
    [{ host, origin: `https://${host}.evil.example` }, false, 'a look-alike origin'],
    [{ host, origin: `https://${host}:8443` }, false, 'another port'],
    [{ host, origin: 'null' }, false, 'Origin null (sandboxed frame, data: page)'],
    [{ origin: `https://${host}` }, false, 'no Host to compare with'],
  ];
  for (const [headers, expected, what] of cases) t.equal(sameOrigin(headers), expected, what);
});

t.test('tokensMatch: the exact token only; anything else false, never a throw', async (t) => {
  const token = 'A'.repeat(43);
  t.equal(tokensMatch(token, token), true);
  for (const sent of ['', 'A'.repeat(42), 'A'.repeat(44), `${'A'.repeat(42)}B`, 'é'.repeat(43), `${'A'.repeat(42)}é`, undefined, null, 43, ['x'], { a: 1 }]) {
    t.equal(tokensMatch(sent, token), false, JSON.stringify(sent));
  }
});
