// The developer console in a real browser: Debian's Chromium driven by playwright-core (`.ci/run`
// installs chromium; SVC_TEST_CHROMIUM names another binary). An invitee sets a password and signs in
// with the keyboard alone, creates a key (shown once, with its copy button; opened again, the keys page
// shows only ids; a reload posts nothing again), sets its retention (the next job's result follows),
// revokes it after its confirmation page; axe-core finds no
// serious or critical violation on any page, and the page's own CSP is in force (no inline script runs). Screenshots of every page are
// written under test/.cache/console-screenshots/ (PNG).
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { INVITE_TTL_MS } from '../../src/cli/console-users-command.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { completeJob, createJob, jobBody, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { checkPage, consoleInBrowser, SKIP, tabTo } from './browser-harness.js';

const PASSWORD = 'cedar-otoscope-1957';

const started = consoleInBrowser(t);

t.test('invite, password, keys: by keyboard alone, accessible, the key shown once', { skip: SKIP }, async (t) => {
  const { token } = await started.svc.stores.consoleAccounts.createInvite('clinic-browser', 'dr.ames@clinic.example', Date.now(), INVITE_TTL_MS);
  const context = await started.browser.newContext();
  const page = await context.newPage();
  const inlineRan: string[] = [];
  page.on('console', (message) => inlineRan.push(message.text()));
  const base = started.svc.service.consoleUrl!;

  await page.goto(`${base}/invite/${token}`);
  await checkPage(t, page, 'invite');
  await tabTo(page, 'input[name="password"]');
  await page.keyboard.type(PASSWORD);
  await tabTo(page, 'input[name="repeat"]');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/keys`);
  t.equal(await page.textContent('h1'), 'API keys', 'signed in on the keys page');
  await checkPage(t, page, 'keys');

  await tabTo(page, 'button.primary');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#created-key');
  const key = (await page.textContent('#created-key'))!.trim();
  t.match(key, /^svc_/, 'the new key, shown');
  t.ok(await page.isVisible('button[data-copy="created-key"]'), "the copy button (the console's own script) is shown");
  t.equal(page.url(), `${base}/keys`, "after the change, the page's own address (post, redirect, get)");
  await checkPage(t, page, 'key-created');
  t.equal((await fetch(`${started.svc.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status, 200, 'it works on the API');

  await page.reload();
  t.notOk((await page.content()).includes(key), 'reloaded: the page, never the key again, and no second key');
  t.equal((await started.svc.stores.keys.list('clinic-browser')).length, 1);
  const id = (await page.textContent('tbody code'))!;

  // The key's retention, changed by keyboard: the next job's result follows it.
  await tabTo(page, 'input[name="retention_hours"]');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('3');
  await tabTo(page, `button[aria-label="Save the settings of ${id}"]`);
  await page.keyboard.press('Enter');
  await page.waitForSelector('.notice.ok');
  t.match(await page.textContent('.notice.ok'), /saved/);
  const audio = await readFile(await speechWav(2));
  const job = await createJob(started.svc.url, key, jobBody(audio));
  t.equal((await uploadFile(job, audio)).status, 204);
  t.equal((await completeJob(job, key)).status, 202);
  const done = await waitForEnd(job.poll_url, key);
  t.equal(done.status, 'succeeded');
  t.ok(Math.abs(done.result.expires_in_seconds - 3 * 3600) < 120, `the job's result is kept 3 h (${done.result.expires_in_seconds} s left)`);

  // Revoking asks first (a page of its own), then answers with the keys page.
  await tabTo(page, `a[aria-label="Revoke ${id}"]`);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/keys/${id}/revoke`);
  t.equal(await page.textContent('h1'), `Revoke ${id}?`, 'the confirmation page');
  t.equal((await fetch(`${started.svc.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status, 200, 'not revoked yet');
  await checkPage(t, page, 'key-revoke-confirm');
  await tabTo(page, 'button.danger');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/keys`);
  await page.waitForSelector('.notice.ok');
  t.match(await page.textContent('.notice.ok'), /revoked/);
  t.equal((await fetch(`${started.svc.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status, 401, 'revoked at once');

  await context.clearCookies();
  await page.goto(`${base}/keys`);
  t.equal(new URL(page.url()).pathname, '/sign-in', 'without the session: the sign-in page');
  await checkPage(t, page, 'sign-in');
  t.same(inlineRan, [], 'nothing logged to the console by the page');
  await context.close();
});
