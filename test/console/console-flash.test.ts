// The one-time flash a console change leaves for its page (src/console/console-flash.ts): only the
// session that made it, on the page it names, opens it; a damaged or foreign cookie opens as none.
import t from 'tap';

import { type Flash, flashCookie, openFlash, sealFlash } from '../../src/console/console-flash.js';

const SESSION = 'A'.repeat(43);
const flash: Flash = { notice: { kind: 'ok', text: 'Key key_1 created.' }, shown: { id: 'key_1', key: 'svc_secret' } };
const header = (value: string) => `svc_console_session=${SESSION}; svc_console_flash=${value}`;

t.test('sealed for a session and a page: opened there, nowhere else', async (t) => {
  const value = sealFlash(SESSION, '/keys', flash);
  t.match(value, /^[A-Za-z0-9_-]+$/, 'a cookie-safe value');
  t.notMatch(Buffer.from(value, 'base64url').toString('latin1'), /svc_secret|created/, 'nothing readable in it');
  t.same(openFlash(header(value), SESSION, '/keys'), flash, 'its session and page open it');
  t.equal(openFlash(header(value), 'B'.repeat(43), '/keys'), null, 'another session cannot');
  t.equal(openFlash(header(value), SESSION, '/webhooks'), null, 'nor another page');
  t.not(sealFlash(SESSION, '/keys', flash), value, 'a fresh IV each time');
});

t.test('no cookie, a damaged one or a short one: none', async (t) => {
  const value = sealFlash(SESSION, '/keys', flash);
  const flipped = Buffer.from(value, 'base64url');
  flipped[flipped.length - 1] ^= 1;
  t.equal(openFlash(`svc_console_session=${SESSION}`, SESSION, '/keys'), null);
  t.equal(openFlash(undefined, SESSION, '/keys'), null);
  t.equal(openFlash(header(flipped.toString('base64url')), SESSION, '/keys'), null, 'tampered');
  t.equal(openFlash(header('abc'), SESSION, '/keys'), null, 'too short');
});

t.test('the cookie: HttpOnly, SameSite=Strict, a minute; Secure when asked; cleared with Max-Age=0', async (t) => {
  t.equal(flashCookie('v', false), 'svc_console_flash=v; Path=/; HttpOnly; SameSite=Strict; Max-Age=60');
  t.match(flashCookie('v', true), /; Secure$/);
  t.match(flashCookie('', false, 0), /^svc_console_flash=; .*Max-Age=0/);
});
