// The console's usage page over HTTP on a real service (its own listener): audio metered by real
// inline transcriptions through the API, shown for the signed-in user's tenant only (every key of
// it; another tenant's usage never appears), what would be refused and until when as the API decides
// it (the page's sentence changes with the terms, and the API then refuses), the allowance bars,
// the spend cap, the chart (inline SVG with a title and description) with its table, and the CSV;
// an earlier period (audio metered on a clock moved back) with its CSV and the links between periods.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { billingPeriodAt } from '../../src/billing/billing-period.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { recordCanary } from '../helpers/test-logs.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';
import { ConsoleClient, newMember } from './console-client.js';

const PASSWORD = 'walnut-sphygmo-8812';
const DAY = 86_400_000;
let svc: TestService;
let wav: Uint8Array;
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);

t.before(async () => {
  svc = await startTestService({}, { clock });
  wav = await readFile(await speechWav(2));
});
t.teardown(() => svc?.close());

const member = (tenant: string): Promise<ConsoleClient> => newMember(svc, tenant, PASSWORD);

const transcribe = (key: string) =>
  postTranscription(svc.url, key, { model: 'svc-medical-1', response_format: 'json' }, { data: wav, name: 'visit.wav', type: 'audio/wav' });

t.test('usage: the tenant’s metered audio by day, route and pool; what would be refused and until when; CSV; no other tenant', async (t) => {
  const mine = await svc.createKey({ tenant: 'clinic-usage', plan: 'builder' });
  const second = await svc.createKey({ tenant: 'clinic-usage', plan: 'builder' });
  const theirs = await svc.createKey({ tenant: 'clinic-neighbour', plan: 'builder' });
  for (const key of [mine, second, theirs]) recordCanary('api_key', key.key);
  t.equal((await transcribe(mine.key)).status, 200, 'a real inline transcription, metered');
  t.equal((await transcribe(second.key)).status, 200, "the tenant's other key");
  t.equal((await transcribe(theirs.key)).status, 200, "another tenant's");
  const client = await member('clinic-usage');

  const period = billingPeriodAt(Date.now(), 1);
  const resets = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(period.endMs);
  const page = await client.get('/usage');
  t.equal(page.status, 200);
  t.match(page.page, `Period <strong>${period.label}</strong>`);
  t.match(page.page, `reset on <strong>${resets}, 00:00 UTC</strong>`);
  t.match(
    page.page,
    'Batch audio: 25.00 h more is accepted; beyond that it is refused because the monthly batch allowance is used and this plan has no overage, ' +
      `until ${resets}, 00:00 UTC.`,
    "the builder plan's 25 h, less the 4 s used",
  );
  t.match(
    page.page,
    /<meter id="allowance-batch-0" aria-labelledby="allowance-batch-0-label" min="0" max="90000000"[^>]* value="4000">/,
    'the batch allowance bar: 4 s of 25 h',
  );
  t.match(page.page, 'under 0.01 h of 25.00 h used (0.0 %)', 'one unit in the sentence (issue 50: not 4.0 s of 25.00 h)');
  t.match(page.page, /<svg class="chart" role="img" aria-labelledby="chart-title chart-desc"/, 'the chart: one image, named and described');
  t.match(page.page, /<desc id="chart-desc">4\.0 s of audio in the period: inline \(batch\) 4\.0 s\./);
  const today = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(Date.now());
  t.match(page.page, `<tr><td>${today}</td><td>inline</td><td>batch</td><td>2</td><td>4.0 s</td></tr>`, 'the same figures as a table: both keys of the day');
  t.match(page.page, mine.id);
  t.match(page.page, second.id);
  t.notMatch(page.page, theirs.id, "another tenant's key never appears");
  t.notMatch(page.page, /\sstyle=|<script>|\son[a-z]+=/, 'no inline style, script or handler (the chart included)');
  t.match(page.page, '<a href="/usage.csv" download>');

  const csv = await client.get('/usage.csv');
  t.equal(csv.status, 200);
  t.match(csv.headers.get('content-type'), /^text\/csv/);
  t.equal(csv.headers.get('content-disposition'), `attachment; filename="svc-stt-usage-${period.label}.csv"`);
  t.equal(csv.headers.get('cache-control'), 'no-store');
  const day = new Date().toISOString().slice(0, 10);
  t.equal(
    csv.page,
    `period,day,route,pool,units,audio_seconds,audio_hours\r\n${period.label},${day},inline,batch,2,4.000,0.001111\r\n`,
    "one row per day, route and pool: the tenant's two keys, not the neighbour's",
  );

  // The tenant's allowance set below what it used: the page says batch is refused now, and the API refuses it.
  await svc.stores.billing.updateKey(mine.id, { overrides: { batchIncludedMs: 3_000 } });
  const blocked = await client.get('/usage');
  t.match(blocked.page, `New batch audio is refused now: the monthly batch allowance is used and this plan has no overage, until ${resets}, 00:00 UTC.`);
  t.match(blocked.page, `(keys ${mine.id})`, 'named, since the tenant’s keys differ');
  t.equal((await transcribe(mine.key)).status, 402, 'and the API refuses it');
  t.equal((await transcribe(second.key)).status, 200, 'the other key, on the plan’s terms, is not refused');

  await svc.stores.billing.updateKey(second.id, { overrides: { spendCapMicros: 5_000_000 } });
  t.match((await client.get('/usage')).page, /<meter aria-label="Spend of key_\w+ against its cap" min="0" max="5000000"\s+value="0">/, 'a spend cap: its bar');

  const signedOut = new ConsoleClient(svc.service.consoleUrl!);
  t.equal((await signedOut.get('/usage')).status, 303, 'signed out: to sign-in');
  t.equal((await signedOut.get('/usage.csv')).status, 303);
  const neighbour = await member('clinic-neighbour');
  const theirPage = await neighbour.get('/usage');
  t.notMatch(theirPage.page, mine.id, "the neighbour sees none of this tenant's keys");
  t.match((await neighbour.get('/usage.csv')).page, /,inline,batch,1,2\.000,/, 'and only its own audio');
});

t.test('an earlier period: its audio by day and its CSV, links between periods; a later or malformed period is not found', async (t) => {
  const key = await svc.createKey({ tenant: 'clinic-history', plan: 'builder' });
  offsetMs = -35 * DAY;
  const then = clock().getTime();
  t.equal((await transcribe(key.key)).status, 200, 'metered 35 days ago: an earlier period');
  offsetMs = 0;
  const past = billingPeriodAt(then, 1);
  const current = billingPeriodAt(Date.now(), 1);
  const previous = billingPeriodAt(current.startMs - 1, 1).label;
  const client = await member('clinic-history');

  const now = await client.get('/usage');
  t.match(now.page, `<a href="/usage?period=${previous}">Previous period (${previous})</a>`);
  t.notMatch(now.page, 'Next period', 'nothing after the current period');
  t.match(now.page, 'No audio in the period yet.');
  const page = await client.get(`/usage?period=${past.label}`);
  t.equal(page.status, 200);
  t.match(page.page, `<h1>Usage of ${past.label}</h1>`);
  t.match(page.page, 'This period is closed.');
  t.notMatch(page.page, 'What would be refused', 'what is refused and spent is told of the current period only');
  const day = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(then);
  t.match(page.page, `<tr><td>${day}</td><td>inline</td><td>batch</td><td>1</td><td>2.0 s</td></tr>`);
  t.match(page.page, `>Next period (${billingPeriodAt(past.endMs, 1).label})</a>`);
  t.match(page.page, `<a href="/usage.csv?period=${past.label}" download>`);
  const csv = await client.get(`/usage.csv?period=${past.label}`);
  t.equal(csv.headers.get('content-disposition'), `attachment; filename="svc-stt-usage-${past.label}.csv"`);
  t.equal(
    csv.page,
    `period,day,route,pool,units,audio_seconds,audio_hours\r\n${past.label},${new Date(then).toISOString().slice(0, 10)},inline,batch,1,2.000,0.000556\r\n`,
  );
  for (const asked of [billingPeriodAt(current.endMs, 1).label, '2026-13', 'last-month', '1969-12', '']) {
    t.equal((await client.get(`/usage?period=${asked}`)).status, 404, `period=${asked}: not found`);
  }
  t.equal((await client.get(`/usage.csv?period=${billingPeriodAt(current.endMs, 1).label}`)).status, 404);
});
