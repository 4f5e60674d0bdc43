// Usage metering end to end on a real service (micro model, the test store pair): every route's work
// metered to the millisecond (inline, translation, a job, a realtime session by the audio received),
// GET /v1/usage for the key's own tenant only, and 402 billing_blocked decided by metering before
// work is accepted, never in its middle: the allowance on a plan without overage, the spend cap, the
// prepaid credit, the monthly rollover on a controllable clock, and an operator's pause winning.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import Database from 'better-sqlite3';
import t, { type Test } from 'tap';

import { runUsageCommand } from '../../src/cli/usage-command.js';
import { openPostgres } from '../../src/store/postgres/database.js';
import { databasePath } from '../../src/store/sqlite/database.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, type CreatedJob, createJob, createJobRequest, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { OwnDocumentValidator } from '../helpers/own-document-validator.js';
import { connectRealtime, startMessage, wavPcm } from '../helpers/realtime-client.js';
import { recordCanary } from '../helpers/test-logs.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

const HOUR_MICROS_PER_SECOND = 3_600_000_000; // a price of 1 currency unit per audio-second
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
let svc: TestService;
let documented: OwnDocumentValidator;
const wav: Record<number, Uint8Array> = {};

t.before(async () => {
  // Audio over 3.5 s sent to /v1/audio/transcriptions becomes a job (the direct upload's retry below).
  svc = await startTestService({ SVC_METRICS_TENANT_LABELS: '20', SVC_INLINE_BOUNDARY_SECONDS: '3.5' }, { clock });
  documented = await OwnDocumentValidator.fetch(svc.url);
  for (const seconds of [1, 2, 3, 4]) wav[seconds] = await readFile(await speechWav(seconds));
});
t.teardown(() => svc?.close());

const transcribe = (key: string, seconds: number, path?: string) =>
  postTranscription(svc.url, key, { model: 'svc-medical-1', response_format: 'json' }, { data: wav[seconds], name: 'a.wav', type: 'audio/wav' }, {}, path);

async function usageOf(key: string, query = ''): Promise<{ status: number; body: any }> {
  const res = await fetch(`${svc.url}/v1/usage${query}`, { headers: auth(key) });
  return { status: res.status, body: await res.json() };
}

/** The ledger is written after a realtime session closes: wait for it. */
async function usageWith(key: string, until: (body: any) => boolean): Promise<any> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { body } = await usageOf(key);
    if (until(body) || Date.now() > deadline) return body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const lines = (body: any) =>
  body.keys.flatMap((k: any) => k.lines) as Array<{ route: string; units: number; audio_seconds: number; overage_hours: number; cost: number }>;

async function assertBlocked(t: Test, res: Response, reason: RegExp) {
  t.equal(res.status, 402);
  const body = (await res.json()) as { error: { code: string; message: string } };
  t.same(Object.keys(body), ['error']);
  t.equal(body.error.code, 'billing_blocked');
  t.match(body.error.message, reason);
}

async function runJob(key: string, seconds: number) {
  const job = await createJob(svc.url, key, jobBody(wav[seconds]));
  t.equal((await uploadFile(job, wav[seconds])).status, 204);
  t.equal((await completeJob(job, key)).status, 202);
  return { job, done: await waitForEnd(job.poll_url, key) };
}

async function realtimeSession(key: string, seconds: number) {
  const client = await connectRealtime(svc.service.realtime!.url);
  client.start(startMessage(key));
  await client.next('ready');
  await client.stream(wavPcm(wav[seconds]), { pace: Infinity });
  client.stop();
  await client.next('final');
  return client.closed;
}

t.test('every route is metered to the millisecond; GET /v1/usage shows the own tenant only', async (t) => {
  const a = await svc.createKey({ tenant: 'clinic-a', plan: 'payg' });
  const b = await svc.createKey({ tenant: 'clinic-b', plan: 'payg' });
  t.equal((await transcribe(a.key, 3)).status, 200);
  t.equal((await transcribe(a.key, 2, '/v1/audio/translations')).status, 200);
  t.equal((await runJob(a.key, 4)).done.status, 'succeeded');
  t.equal((await realtimeSession(a.key, 2)).code, 1000);

  const body = await usageWith(a.key, (u) => lines(u).some((l) => l.route === 'realtime'));
  t.same(documented.errors('get', '/v1/usage', 200, 'application/json', body), [], 'the answer matches the document');
  t.equal(body.tenant, 'clinic-a');
  const byRoute = Object.fromEntries(lines(body).map((l) => [l.route, { units: l.units, audio_seconds: l.audio_seconds, cost: l.cost }]));
  t.same(byRoute, {
    inline: { units: 1, audio_seconds: 3, cost: 0 },
    translation: { units: 1, audio_seconds: 2, cost: 0 },
    job: { units: 1, audio_seconds: 4, cost: 0 },
    realtime: { units: 1, audio_seconds: 2, cost: 0 },
  });
  t.equal(body.batch_seconds, 9, 'inline, translation and the job share the batch pool');
  t.equal(body.realtime_seconds, 2);
  t.same(body.keys[0].blocked, { batch: null, realtime: null });

  const metrics = await (await fetch(`${svc.url}/metrics`)).text();
  const metered = (route: string) =>
    Number(new RegExp(`^svc_stt_metered_audio_seconds_total\\{route="${route}",model="svc-medical-1"[^}]*\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
  t.same(['inline', 'translation', 'job', 'realtime'].map(metered), [3, 2, 4, 2], 'Prometheus counts the same seconds');
  const period = (name: string, pool: string) =>
    Number(new RegExp(`^svc_stt_usage_period_${name}\\{tenant="clinic-a",pool="${pool}"[^}]*\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
  t.same(
    [period('audio_seconds', 'batch'), period('audio_seconds', 'realtime'), period('overage_seconds', 'batch'), period('cost', 'batch')],
    [9, 2, 0, 0],
    "the period's ledger figures per tenant and pool",
  );
  t.notMatch(metrics, /key_/, 'without key labels');
  t.same(
    metrics
      .split('\n')
      .filter((l) => l.includes('clinic-'))
      .map((l) => l.split('{')[0])
      .filter((n, i, all) => all.indexOf(n) === i)
      .sort(),
    ['svc_stt_usage_period_audio_seconds', 'svc_stt_usage_period_cost', 'svc_stt_usage_period_overage_seconds'],
    'tenant ids in the usage gauges only',
  );

  t.equal((await usageOf(b.key, '?tenant=clinic-a')).status, 404, "another tenant's figures: 404");
  t.equal((await usageOf(a.key, '?tenant=clinic-a')).status, 200, 'naming the own tenant is fine');
  t.same(
    await usageOf(a.key, '?month=2026-01'),
    { status: 400, body: { error: { code: 'invalid_request', message: 'a query parameter is not one this route takes (only: tenant)' } } },
    'an unknown parameter: refused, naming what the route takes (never the name sent)',
  );
  const other = await usageOf(b.key);
  t.equal(other.body.tenant, 'clinic-b');
  t.same(lines(other.body), [], 'nothing of clinic-a is shown to clinic-b');
  t.equal(other.body.batch_seconds, 0);

  // The operator's report of the same period, as `svc-stt usage --tenant clinic-a` prints it.
  const saved = { dir: process.env.SVC_DATA_DIR, url: process.env.SVC_DATABASE_URL };
  process.env.SVC_DATA_DIR = svc.dataDir;
  if (svc.config.database.url) process.env.SVC_DATABASE_URL = svc.config.database.url;
  t.teardown(() => {
    if (saved.dir === undefined) delete process.env.SVC_DATA_DIR;
    else process.env.SVC_DATA_DIR = saved.dir;
    if (saved.url === undefined) delete process.env.SVC_DATABASE_URL;
    else process.env.SVC_DATABASE_URL = saved.url;
  });
  let table = '';
  await runUsageCommand(['--tenant', 'clinic-a'], { write: (text: string) => (table += text) }, clock().getTime());
  t.comment(`svc-stt usage --tenant clinic-a\n${table}`);
  t.match(table, /clinic-a/);
  t.notMatch(table, /clinic-b/);
  let csv = '';
  await runUsageCommand(['--tenant', 'clinic-a', '--csv'], { write: (text: string) => (csv += text) }, clock().getTime());
  const rows = csv.trim().split('\n');
  t.equal(rows.length, 5, 'a header and one row per route');
  t.equal(
    rows.slice(1).reduce((sum, row) => sum + Number(row.split(',')[8]), 0),
    11,
    'the CSV reconciles: 11 audio-seconds',
  );
});

t.test('the allowance on a plan without overage: work that does not fit is refused, a job at its completion; the month resets it; a pause wins', async (t) => {
  const key = await svc.createKey({ tenant: 'clinic-builder', plan: 'builder' });
  await svc.stores.billing.updateKey(key.id, { overrides: { batchIncludedMs: 5_000, realtimeIncludedMs: 0 } });

  t.equal((await transcribe(key.key, 3)).status, 200, '3 of 5 s');
  const retried = { 'idempotency-key': `visit-${randomBytes(4).toString('hex')}` };
  const waiting = await createJobRequest(svc.url, key.key, jobBody(wav[2]), retried);
  t.equal(waiting.status, 201, 'a job created while the allowance lasts, its audio not sent yet');
  const waitingJob = (await waiting.json()) as CreatedJob;
  await assertBlocked(t, await transcribe(key.key, 3), /monthly batch allowance is used.*until \d{4}-\d\d-\d\dT/);
  // A job's length is not known at creation: its file is measured at completion and must fit then.
  const tooLong = await createJob(svc.url, key.key, jobBody(wav[4]));
  t.equal((await uploadFile(tooLong, wav[4])).status, 204);
  await assertBlocked(t, await completeJob(tooLong, key.key), /allowance/);
  t.equal((await poll(tooLong.poll_url, key.key)).body.status, 'awaiting_upload', '4 s beyond 2 s left: refused at completion, the job waits with its file');
  const { job, done } = await runJob(key.key, 2);
  t.equal(done.status, 'succeeded', 'the 2 s that fit are accepted and finish');
  let body = (await usageOf(key.key)).body;
  t.equal(body.batch_seconds, 5, 'metered in full: the allowance exactly');
  t.equal(lines(body).find((l) => l.route === 'job')!.overage_hours, 0, 'nothing beyond it');
  t.equal(body.keys[0].cost, 0);
  t.equal(body.keys[0].blocked.batch.reason, 'allowance');
  t.equal(body.keys[0].blocked.batch.resets_at, body.resets_at, 'lifts when the period ends');

  await assertBlocked(t, await createJobRequest(svc.url, key.key, jobBody(wav[2])), /allowance/);
  const replayed = await createJobRequest(svc.url, key.key, jobBody(wav[2]), retried);
  t.equal(replayed.status, 201, 'a retry of a creation that succeeded is answered as before, not refused');
  t.equal(((await replayed.json()) as { id: string }).id, waitingJob.id);
  t.equal((await uploadFile(waitingJob, wav[2])).status, 204, 'its upload is taken');
  await assertBlocked(t, await completeJob(waitingJob, key.key), /allowance/);
  t.equal(
    ((await (await fetch(`${svc.url}/v1/jobs/${waitingJob.id}`, { headers: auth(key.key) })).json()) as { status: string }).status,
    'awaiting_upload',
    'its completion is refused; the job waits, nothing lost',
  );
  t.equal((await fetch(job.poll_url, { headers: auth(key.key) })).status, 200, 'result retrieval keeps working');
  t.equal((await fetch(`${job.poll_url}/result`, { headers: auth(key.key) })).status, 200);

  const client = await connectRealtime(svc.service.realtime!.url);
  client.start(startMessage(key.key));
  const error = await client.next('error');
  t.equal(error.code, 'billing_blocked');
  t.same(await client.closed, { code: 4402, reason: 'BILLING_BLOCKED' }, 'refused before any audio');
  t.notOk(client.events.some((e) => e.type === 'ready'));

  // The next period: the allowance is there again.
  offsetMs = Date.parse(body.resets_at) - Date.now() + 60_000;
  t.teardown(() => {
    offsetMs = 0;
  });
  t.equal((await transcribe(key.key, 3)).status, 200, 'the monthly reset unblocks by itself');
  body = (await usageOf(key.key)).body;
  t.equal(body.batch_seconds, 3, 'a new period counts afresh');

  await svc.updateKey(key.id, { billingState: 'paused' });
  await assertBlocked(t, await transcribe(key.key, 1), /paused/);
  t.match(
    await (await fetch(`${svc.url}/metrics`)).text(),
    /^svc_stt_billing_refusals_total\{reason="allowance",pool="batch"[^}]*\} [1-9]/m,
    'refusals are counted by limit',
  );
  t.equal((await usageOf(key.key)).body.keys[0].blocked.batch.resets_at, null, 'a pause waits for an operator');
});

t.test('a direct upload that became a job, retried with its Idempotency-Key once the allowance is used: the same job, not 402', async (t) => {
  const key = await svc.createKey({ tenant: 'clinic-direct', plan: 'builder' });
  await svc.stores.billing.updateKey(key.id, { overrides: { batchIncludedMs: 5_000 } });
  const retried = { 'idempotency-key': `direct-${randomBytes(4).toString('hex')}` };
  const send = () =>
    postTranscription(svc.url, key.key, { model: 'svc-medical-1', response_format: 'json' }, { data: wav[4], name: 'visit.wav', type: 'audio/wav' }, retried);
  const first = await send();
  t.equal(first.status, 202, '4 s is beyond the inline boundary: a job');
  const created = (await first.json()) as { id: string; poll_url: string };
  t.equal((await waitForEnd(created.poll_url, key.key)).status, 'succeeded');
  await assertBlocked(t, await transcribe(key.key, 2), /allowance/);
  const again = await send();
  t.equal(again.status, 202, 'the retry is answered as before');
  t.equal(((await again.json()) as { id: string }).id, created.id);
  t.equal((await usageOf(key.key)).body.batch_seconds, 4, 'and nothing more is metered');
});

t.test('the spend cap: work that would pass it is refused; work that reaches it exactly is not', async (t) => {
  const key = await svc.createKey({ tenant: 'clinic-capped', plan: 'payg' });
  await svc.stores.billing.updateKey(key.id, { overrides: { batchIncludedMs: 1_000, batchPriceMicros: HOUR_MICROS_PER_SECOND, spendCapMicros: 2_000_000 } });
  t.equal((await transcribe(key.key, 2)).status, 200, '1 s included, 1 s charged: 1 of 2');
  await assertBlocked(t, await transcribe(key.key, 2), /spend cap/);
  t.equal((await transcribe(key.key, 1)).status, 200, 'one more second reaches the cap exactly');
  const body = (await usageOf(key.key)).body;
  t.equal(body.keys[0].cost, 2);
  t.equal(body.keys[0].blocked.batch.reason, 'spend_cap');
  await assertBlocked(t, await transcribe(key.key, 1), /spend cap/);
});

t.test('prepaid credit: used up, refused; a top-up lets work in again', async (t) => {
  const key = await svc.createKey({ tenant: 'clinic-prepaid', plan: 'payg' });
  await svc.stores.billing.updateKey(key.id, { overrides: { batchIncludedMs: 0, batchPriceMicros: HOUR_MICROS_PER_SECOND }, addCreditMicros: 2_000_000 });
  await assertBlocked(t, await transcribe(key.key, 3), /credit/);
  t.equal((await transcribe(key.key, 2)).status, 200, 'two seconds use the credit up');
  let body = (await usageOf(key.key)).body;
  t.equal(body.keys[0].credit_left, 0);
  t.same(body.keys[0].blocked.batch, { reason: 'credit', resets_at: null }, 'no allowance: only a top-up lifts it');
  await assertBlocked(t, await transcribe(key.key, 1), /credit/);
  await svc.stores.billing.updateKey(key.id, { addCreditMicros: 5_000_000 });
  t.equal((await transcribe(key.key, 1)).status, 200);
  body = (await usageOf(key.key)).body;
  t.equal(body.keys[0].credit_left, 4);
});

/** Every row of a table of the service's database, on whichever store pair the suite runs. */
async function rawRows(table: string): Promise<Record<string, unknown>[]> {
  if (svc.config.database.url) {
    const db = await openPostgres(svc.config.database.url);
    try {
      return (await db.query<Record<string, unknown>>(`SELECT * FROM ${table}`)).rows;
    } finally {
      await db.close();
    }
  }
  const db = new Database(databasePath(svc.dataDir), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

t.test('the ledger holds counters only: no file name, prompt, vocabulary or text of the work in it (nor in the logs)', async (t) => {
  const key = await svc.createKey({ tenant: 'clinic-audit', plan: 'payg' });
  const canary = `zq${randomBytes(4).toString('hex')}`;
  const fileName = `jane-doe-${canary}.wav`;
  const prompt = `Jane Doe ${canary} takes warfarin`;
  const term = `Canarycillin${canary}`;
  const inline = await postTranscription(
    svc.url,
    key.key,
    { model: 'svc-medical-1', response_format: 'json', prompt },
    { data: wav[3], name: fileName, type: 'audio/wav' },
  );
  t.equal(inline.status, 200);
  const said = ((await inline.json()) as { text: string }).text;
  const job = await createJob(svc.url, key.key, jobBody(wav[2], { filename: fileName, prompt, vocabulary: [term] }));
  t.equal((await uploadFile(job, wav[2])).status, 204);
  t.equal((await completeJob(job, key.key)).status, 202);
  t.equal((await waitForEnd(job.poll_url, key.key)).status, 'succeeded');
  // The suite's log audit (test/adversarial/log-audit.audit.ts) looks for these in every server log.
  recordCanary('filename', fileName);
  recordCanary('transcript', said);
  recordCanary('transcript', prompt);

  const events = (await rawRows('usage_events')).filter((row) => row.tenant === 'clinic-audit');
  t.same(
    events.map((row) => [row.route, Number(row.audio_ms), Number(row.vocabulary)]).sort(),
    [
      ['inline', 3000, 1],
      ['job', 2000, 1],
    ],
    'both metered, vocabulary used',
  );
  const stored = JSON.stringify([...events, ...(await rawRows('key_billing')), ...(await rawRows('billing_plans')), ...(await rawRows('billing_settings'))]);
  for (const secret of [canary, fileName, prompt, term, 'warfarin', 'visit.wav'])
    t.notOk(stored.includes(secret), `no ${JSON.stringify(secret)} in the billing tables`);
  if (said.trim().length >= 8) t.notOk(stored.includes(said.trim()), 'nor the transcript');
  for (const row of events) {
    const words = Object.values(row).filter((value): value is string => typeof value === 'string');
    t.ok(
      words.every((value) => /^[\w:.-]+$/.test(value)),
      `identifiers and categories only: ${words.join(' ')}`,
    );
  }
});
