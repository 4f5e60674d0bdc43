// The console's second factor in a real browser (Debian's Chromium, playwright-core; skipped without
// it): a signed-in user turns TOTP on with the keyboard alone (the password, and the code computed
// here from the secret the page shows), then signs in with the password and a code. axe-core finds no serious or critical
// violation on the account page (the secret, its link and QR code) nor on the code page; screenshots
// of both under test/.cache/console-screenshots/.
import t from 'tap';

import { INVITE_TTL_MS } from '../../src/cli/console-users-command.js';
import { fromBase32, totpCode, totpStep } from '../../src/console/totp.js';
import { checkPage, consoleInBrowser, SKIP, tabTo } from './browser-harness.js';

const PASSWORD = 'alder-tourniquet-3141';
const EMAIL = 'dr.ortiz@clinic.example';

const started = consoleInBrowser(t);

t.test('TOTP turned on and used to sign in, by keyboard alone; the account and code pages accessible', { skip: SKIP }, async (t) => {
  const { token } = await started.svc.stores.consoleAccounts.createInvite('clinic-totp-browser', EMAIL, Date.now(), INVITE_TTL_MS);
  const context = await started.browser.newContext();
  const page = await context.newPage();
  const logged: string[] = [];
  page.on('console', (message) => logged.push(message.text()));
  const base = started.svc.service.consoleUrl!;

  await page.goto(`${base}/invite/${token}`);
  await tabTo(page, 'input[name="password"]');
  await page.keyboard.type(PASSWORD);
  await tabTo(page, 'input[name="repeat"]');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/keys`);

  await tabTo(page, 'nav a[href="/account"]');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/account`);
  await tabTo(page, 'button.primary');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#totp-secret');
  t.ok(await page.isVisible('svg.qr'), 'the QR code is drawn');
  await checkPage(t, page, 'account-totp-setup');
  const secret = fromBase32((await page.textContent('#totp-secret'))!);
  await tabTo(page, 'input[name="password"]');
  await page.keyboard.type(PASSWORD);
  await tabTo(page, 'input[name="code"]');
  await page.keyboard.type(totpCode(secret, totpStep(Date.now())));
  await page.keyboard.press('Enter');
  await page.waitForSelector('#recovery-codes');
  t.match(await page.textContent('.notice.ok'), /Two-step sign-in is on/);

  await context.clearCookies();
  await page.goto(`${base}/sign-in`);
  await tabTo(page, 'input[name="email"]');
  await page.keyboard.type(EMAIL);
  await tabTo(page, 'input[name="password"]');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/sign-in/code`);
  await checkPage(t, page, 'sign-in-code');
  await tabTo(page, 'input[name="code"]');
  // The next step's code: the one that turned TOTP on cannot be used again, and the next is accepted a step early.
  await page.keyboard.type(totpCode(secret, totpStep(Date.now()) + 1));
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/keys`);
  t.equal(await page.textContent('h1'), 'API keys', 'signed in with the second factor');
  t.same(logged, [], 'nothing logged to the console by the pages');
  await context.close();
});
