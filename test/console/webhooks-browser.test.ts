// The webhook pages in a real browser (Debian's Chromium, playwright-core): a key's signing secret
// rotated with the keyboard alone (the new secret shown once with its copy button, the previous
// version with the time it stops signing), and a real delivery redelivered from the deliveries page
// with the keyboard, verified by `standardwebhooks` with the new secret. axe-core finds no serious
// or critical violation on either page; screenshots under test/.cache/console-screenshots/.
import { type Browser, chromium } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import t from 'tap';

import { INVITE_TTL_MS } from '../../src/cli/console-users-command.js';
import { signingKeyOf } from '../../src/store/webhook-signing-secret.js';
import { postTranscription } from '../helpers/test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { startWebhookService, type WebhookSetup } from '../helpers/webhook-service.js';
import { checkPage, CHROMIUM, SKIP, tabTo } from './browser-harness.js';

const PASSWORD = 'alder-tonometer-2024';
const TENANT = 'clinic-webhooks';

let setup: WebhookSetup;
let receiver: WebhookReceiver;
let browser: Browser;

t.before(async () => {
  if (SKIP) return;
  receiver = await startWebhookReceiver({ status: 204 });
  setup = await startWebhookService(t, { dns: { 'hooks.test': { A: ['127.0.0.1'] } }, key: { tenant: TENANT } });
  browser = await chromium.launch({ executablePath: CHROMIUM });
});
t.teardown(async () => {
  await browser?.close();
  await receiver?.close();
});

t.test('rotate a secret and redeliver an event, by keyboard alone, accessible', { skip: SKIP }, async (t) => {
  // A key with a secret and one delivered event, as a clinic's integration would have them.
  await setup.createSecret(Date.now());
  const accepted = await postTranscription(
    setup.svc.url,
    setup.key,
    { model: 'svc-medical-1', webhook_url: `https://hooks.test:${receiver.port}/stt` },
    { data: setup.audio, name: 'visit.wav', type: 'audio/wav' },
  );
  t.equal(accepted.status, 202);
  const jobId = ((await accepted.json()) as { id: string }).id;
  await setup.waitForDelivery(jobId, (d) => d.state === 'delivered');

  const { token } = await setup.svc.stores.consoleAccounts.createInvite(TENANT, 'dev@clinic.example', Date.now(), INVITE_TTL_MS);
  const context = await browser.newContext();
  const page = await context.newPage();
  const logged: string[] = [];
  page.on('console', (message) => logged.push(message.text()));
  const base = setup.svc.service.consoleUrl!;
  await page.goto(`${base}/invite/${token}`);
  await page.fill('input[name="password"]', PASSWORD);
  await page.fill('input[name="repeat"]', PASSWORD);
  await page.press('input[name="repeat"]', 'Enter');
  await page.waitForURL(`${base}/keys`);

  await page.goto(`${base}/webhooks`);
  t.equal(await page.textContent('h1'), 'Webhook secrets');
  await checkPage(t, page, 'webhooks');
  await tabTo(page, `button[aria-label="Rotate the webhook secret of ${setup.keyId}"]`);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#created-secret');
  const secret = (await page.textContent('#created-secret'))!.trim();
  t.same(await setup.secrets.signingKey(setup.keyId, 2, Date.now()), signingKeyOf(secret), 'version 2, shown once');
  t.ok(await page.isVisible('button[data-copy="created-secret"]'), "its copy button (the console's own script)");
  t.match(await page.textContent('main'), /previous: still signs until \d{4}-\d\d-\d\d \d\d:\d\d UTC/, 'the previous version, with its expiry');
  await checkPage(t, page, 'webhook-rotated');

  await page.goto(`${base}/webhooks/deliveries`);
  t.notOk((await page.content()).includes(secret), 'the secret is never shown again');
  const eventId = (await setup.delivery(jobId))!.eventId;
  t.match(await page.textContent('tbody'), /HTTP 204/);
  await checkPage(t, page, 'webhook-deliveries');
  await tabTo(page, `button[aria-label="Redeliver ${eventId}"]`);
  await page.keyboard.press('Enter');
  await page.waitForSelector('.notice.ok');
  const [, again] = await receiver.waitForRequests(2);
  t.equal(again!.headers['webhook-id'], eventId);
  const headers = {
    'webhook-id': eventId,
    'webhook-timestamp': String(again!.headers['webhook-timestamp']),
    'webhook-signature': String(again!.headers['webhook-signature']),
  };
  t.ok(new Webhook(secret).verify(again!.body.toString('utf8'), headers), 'redelivered, signed with the new secret');
  t.same(logged, [], 'nothing logged to the console by the pages');
  await context.close();
});
