// The usage page and key rotation in a real browser (Debian's Chromium, playwright-core): the usage
// page after real metered audio (its chart, allowance bars and CSV link; axe-core finds no serious or
// critical violation; no inline script ran), and a key rotated with the keyboard alone (the overlap
// picked in the select, the new key shown once and usable at once, the old one still usable in its
// overlap). Screenshots usage.png and key-rotated.png under test/.cache/console-screenshots/.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { INVITE_TTL_MS } from '../../src/cli/console-users-command.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { postTranscription } from '../helpers/test-service.js';
import { checkPage, consoleInBrowser, SKIP, tabTo } from './browser-harness.js';

const PASSWORD = 'hazel-stethoscope-7310';
const TENANT = 'clinic-usage-browser';

const started = consoleInBrowser(t);

const status = async (key: string) => (await fetch(`${started.svc.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status;

t.test('the usage page after real audio, and a key rotated by keyboard alone, accessible', { skip: SKIP }, async (t) => {
  const old = await started.svc.createKey({ tenant: TENANT, plan: 'builder' });
  const audio = await readFile(await speechWav(2));
  const answer = await postTranscription(started.svc.url, old.key, { model: 'svc-medical-1' }, { data: audio, name: 'visit.wav', type: 'audio/wav' });
  t.equal(answer.status, 200, 'metered audio of the tenant');

  const { token } = await started.svc.stores.consoleAccounts.createInvite(TENANT, 'dr.usage@clinic.example', Date.now(), INVITE_TTL_MS);
  const context = await started.browser.newContext();
  const page = await context.newPage();
  const logged: string[] = [];
  page.on('console', (message) => logged.push(message.text()));
  const base = started.svc.service.consoleUrl!;
  await page.goto(`${base}/invite/${token}`);
  await page.fill('input[name="password"]', PASSWORD);
  await page.fill('input[name="repeat"]', PASSWORD);
  await page.press('input[name="repeat"]', 'Enter');
  await page.waitForURL(`${base}/keys`);

  await page.goto(`${base}/usage`);
  t.equal(await page.textContent('h1'), 'Usage');
  t.ok(await page.isVisible('svg.chart rect.series-inline'), 'the day’s inline audio is drawn');
  t.match(await page.getAttribute('svg.chart', 'aria-labelledby'), 'chart-title chart-desc');
  t.ok(await page.isVisible('meter#allowance-batch-0'), 'the batch allowance bar');
  t.equal(await page.getAttribute('a[href="/usage.csv"]', 'download'), '', 'the CSV download link');
  await checkPage(t, page, 'usage');

  await page.goto(`${base}/keys`);
  await tabTo(page, `form[action="/keys/${old.id}/rotate"] select`);
  await page.keyboard.press('ArrowUp');
  t.equal(await page.inputValue(`form[action="/keys/${old.id}/rotate"] select`), '3600', 'after 1 hour, picked with the keyboard');
  await tabTo(page, `button[aria-label="Rotate ${old.id}"]`);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#created-key');
  const fresh = (await page.textContent('#created-key'))!.trim();
  t.match(fresh, /^svc_/, 'the new key, shown once');
  t.match(await page.textContent('.notice.ok'), `${old.id} works until`);
  t.equal(await status(fresh), 200, 'the new key works at once');
  t.equal(await status(old.key), 200, 'the old one during its overlap');
  await checkPage(t, page, 'key-rotated');
  t.same(logged, [], 'nothing logged to the console by the pages');
  await context.close();
});
