// The playground in a real browser (Debian's Chromium, playwright-core), on a real service. Upload
// tab, by keyboard (the file itself is set by playwright: a file chooser is the system's, not the
// page's): a generated two-voice exchange, diarized, shows its transcript with speaker labels and
// words with their times; choosing a word moves the <audio> element (playing the chosen file from a
// blob: URL) to the word's start. Realtime tab: Chromium's fake microphone plays an espeak-ng WAV;
// the page streams it through the realtime listener with a client secret the console minted,
// shows turn finals with live speaker labels, and Stop reaches `final`; the key never reaches the
// page. axe-core finds no serious or critical violation; screenshots playground*.png under
// test/.cache/console-screenshots/.
import { readFile } from 'node:fs/promises';

import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import t from 'tap';

import { INVITE_TTL_MS } from '../../src/cli/console-users-command.js';
import { CONVERSATION_VOICES, exchange } from '../helpers/conversations.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { checkPage, CHROMIUM, SKIP, tabTo } from './browser-harness.js';

const PASSWORD = 'linden-sphygmomanometer-5';
const TENANT = 'clinic-playground-browser';
const WAITING_MS = 120_000;

let svc: TestService;
let browser: Browser;
let recording: string;
let key: { key: string; id: string };

t.before(async () => {
  if (SKIP) return;
  // More tokens a window than the suite's default: a transcript with words enough to choose from.
  svc = await startTestService({ SVC_MAX_TOKENS: '48' });
  recording = (await exchange({ voices: [CONVERSATION_VOICES.A, CONVERSATION_VOICES.B], turns: 4, minSeconds: 3, maxSeconds: 4, seed: 5 })).path;
  key = await svc.createKey({ tenant: TENANT });
  // The fake microphone plays the exchange once (then silence), as if spoken into it.
  const microphone = ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${recording}%noloop`];
  browser = await chromium.launch({ executablePath: CHROMIUM, args: microphone });
});
t.teardown(async () => {
  await browser?.close();
  await svc?.close();
});

/** A signed-in member of the tenant, in a context of its own. */
async function signedIn(email: string): Promise<{ context: BrowserContext; page: Page; logged: string[] }> {
  const { token } = await svc.stores.consoleAccounts.createInvite(TENANT, email, Date.now(), INVITE_TTL_MS);
  const context = await browser.newContext();
  await context.grantPermissions(['microphone']);
  const page = await context.newPage();
  const logged: string[] = [];
  page.on('console', (message) => logged.push(message.text()));
  page.on('pageerror', (error) => logged.push(error.message));
  await page.goto(`${svc.service.consoleUrl}/invite/${token}`);
  await page.fill('input[name="password"]', PASSWORD);
  await page.fill('input[name="repeat"]', PASSWORD);
  await page.press('input[name="repeat"]', 'Enter');
  await page.waitForURL(`${svc.service.consoleUrl}/keys`);
  return { context, page, logged };
}

t.test('upload a file by keyboard: its transcript, speakers and words; a word plays the audio from its start', { skip: SKIP }, async (t) => {
  const { context, page, logged } = await signedIn('dr.upload@clinic.example');
  await page.goto(`${svc.service.consoleUrl}/playground`);
  t.equal(await page.textContent('h1'), 'Playground');
  await checkPage(t, page, 'playground');

  await tabTo(page, 'select[name="key_id"]');
  t.equal(await page.inputValue('select[name="key_id"]'), key.id, "the tenant's key");
  await tabTo(page, 'input[type="file"]');
  await page.setInputFiles('input[type="file"]', { name: 'exchange.wav', mimeType: 'audio/wav', buffer: await readFile(recording) });
  await tabTo(page, 'input[name="diarize"]');
  await page.keyboard.press('Space');
  await tabTo(page, 'input[name="min_speakers"]');
  await page.keyboard.type('2');
  await tabTo(page, '#playground-form button[type="submit"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#result-heading', { timeout: WAITING_MS });
  t.ok(await page.evaluate(() => document.activeElement?.id === 'result-heading'), 'the focus moves to the answer');

  t.same(await page.locator('.speaker-chip').allTextContents(), ['A', 'B'], 'two speakers, labelled in text');
  t.same(await page.locator('.speaker-chip').evaluateAll((chips) => chips.map((c) => c.className)), ['speaker-chip speaker-1', 'speaker-chip speaker-2']);
  const heads = await page.locator('li.segment .speaker-label').allTextContents();
  t.ok(heads.length >= 1 && heads.every((h) => /^Speaker [AB]$/.test(h)), `segments labelled: ${heads.join(', ')}`);
  const words = page.locator('button.word');
  const count = await words.count();
  t.ok(count >= 1, `${count} words with their times`);
  t.ok(await page.isVisible('#playground-audio'), 'the audio player, with the chosen file');
  t.match(await page.getAttribute('#playground-audio', 'src'), /^blob:/, 'played from the page, never fetched back');
  t.match(await page.textContent('#playground-result'), /Language runs[\s\S]*?\b[a-z]{2}: \d+\.\d\d s to \d+\.\d\d s/, 'the language runs');

  // The last word (latest start), chosen with the keyboard, with the player far past it: the audio moves back to the word's start.
  const last = words.nth(count - 1);
  const start = Number(await last.getAttribute('data-start'));
  t.match(await last.textContent(), new RegExp(`${start.toFixed(2)}$`), 'its start time shown');
  await page.waitForFunction(() => (document.getElementById('playground-audio') as HTMLAudioElement).readyState >= 1, undefined, { timeout: WAITING_MS });
  await page.evaluate(() => {
    const audio = document.getElementById('playground-audio') as HTMLAudioElement;
    audio.currentTime = audio.duration - 0.5;
  });
  const away = await page.evaluate(() => (document.getElementById('playground-audio') as HTMLAudioElement).currentTime);
  await last.focus();
  await page.keyboard.press('Enter');
  const at = await page.evaluate(() => (document.getElementById('playground-audio') as HTMLAudioElement).currentTime);
  t.ok(at >= start - 0.01 && at < start + 1, `the audio moved from ${away.toFixed(2)} s to ${at.toFixed(2)} s: the word's start, ${start.toFixed(2)} s`);
  await checkPage(t, page, 'playground-transcript');
  t.same(logged, [], 'nothing logged to the console by the page');
  await context.close();
});

t.test('the realtime tab: the fake microphone streams with a client secret, turn finals appear, Stop reaches final', { skip: SKIP }, async (t) => {
  const { context, page, logged } = await signedIn('dr.live@clinic.example');
  await page.goto(`${svc.service.consoleUrl}/playground/realtime`);
  t.notOk(await page.isVisible('#realtime-needs-script'), "the page's script runs");
  await checkPage(t, page, 'playground-realtime');

  await tabTo(page, 'input[name="diarization"]');
  await page.keyboard.press('Space');
  await tabTo(page, '#realtime-start');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#realtime-turns li:not([hidden])', { timeout: WAITING_MS });
  const turn = (await page.textContent('#realtime-turns li:not([hidden]) .segment-head'))!;
  t.match(turn, /\d+\.\d\d s to \d+\.\d\d s/, 'a turn_final, with its times');
  await tabTo(page, '#realtime-stop');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('realtime-final')?.textContent !== '', undefined, { timeout: WAITING_MS });
  t.match(await page.textContent('#realtime-final'), /^Final record: \d+ turns?, \d+\.\d\d s of audio\.$/);
  t.equal(await page.textContent('#realtime-status'), 'Session ended (final).');
  // Live speaker labels: the last turns' labels come before final, so every turn has its voice's.
  const labels = await page.locator('#realtime-turns li:not([hidden]) .speaker-label').allTextContents();
  t.ok(labels.length >= 1 && labels.every((l) => /^Speaker [A-Z]$/.test(l)), `every turn labelled: ${labels.join(', ')}`);
  t.notOk((await page.content()).includes(key.key), 'the API key never reached the page');
  await checkPage(t, page, 'playground-realtime-final');
  t.same(logged, [], 'nothing logged to the console by the page');
  await context.close();
});
