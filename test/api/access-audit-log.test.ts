// The access audit trail (issue 13) on the real service: a job's life is in the logs as job audit lines
// (created, upload received, accepted, claimed, each chunk, succeeded or failed, every read of its
// result by key id), request lines name the key and tenant of authenticated requests, and no line
// holds a key, the uploaded file's names, the prompt or the transcript.
import { readFile } from 'node:fs/promises';

import t, { type Test } from 'tap';

import { JOB_AUDIT_EVENTS, JOB_AUDIT_MESSAGE } from '../../src/jobs/job-audit.js';
import { randomBytesFile, speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, type CreatedJob, createJob, jobBody, poll, waitForEnd } from '../helpers/jobs-client.js';
import { captureLogs, recordCanary } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

type LogLine = Record<string, unknown>;

/** Names the client gives its file (in the job and in the form) and a prompt: content, never logged. */
const JOB_FILENAME = 'audit-canary-jane-roe-visit.wav';
const FORM_FILENAME = 'audit-canary-form-part.wav';
const PROMPT = 'Patient Quorthanna Velmirez, cardiology follow-up';
/** Transcript words shorter than this may well be in a log line by chance ("job", "audit"). */
const MIN_WORD_LENGTH = 6;

let svc: TestService;
let logs: ReturnType<typeof captureLogs>;
let owner: { key: string; id: string; tenant: string };
let sibling: { key: string; id: string; tenant: string };

t.before(async () => {
  logs = captureLogs();
  // 5-second chunks: the 12 s recording takes several claims.
  svc = await startTestService({ SVC_JOB_CHUNK_SECONDS: '5' }, { logger: { level: 'info', stream: logs.stream } });
  owner = await svc.createKey({ tenant: 'tenant-audit' });
  // Another key of the same tenant: the owner's job is not its own (404, and no read is logged for
  // it); its requests' lines name it.
  sibling = await svc.createKey({ tenant: 'tenant-audit' });
  for (const { key } of [owner, sibling]) recordCanary('api_key', key);
  for (const name of [JOB_FILENAME, FORM_FILENAME]) recordCanary('filename', name);
  // Not a transcript, but content all the same: the log audit looks for it like one.
  recordCanary('transcript', PROMPT);
});
t.teardown(async () => {
  await svc.close();
  logs.stream.end();
});

function auditLinesOf(jobId: string): LogLine[] {
  return logs.lines().filter((l) => l.msg === JOB_AUDIT_MESSAGE && l.jobId === jobId);
}

/** The job's audit lines once `event` has been logged (worker lines may trail the poll that saw the outcome). */
async function auditLinesUntil(jobId: string, event: string, limitMs = 10_000): Promise<LogLine[]> {
  const until = Date.now() + limitMs;
  for (;;) {
    const lines = auditLinesOf(jobId);
    if (lines.some((l) => l.audit === event) || Date.now() > until) return lines;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** POSTs the job's form with the file under a name of the test's choosing. */
function upload(job: CreatedJob, data: Uint8Array): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(job.upload.fields)) form.append(name, value);
  form.append('file', new Blob([data as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), FORM_FILENAME);
  return fetch(job.upload.url, { method: 'POST', body: form });
}

async function runJob(data: Uint8Array, extra: Record<string, unknown> = {}): Promise<{ job: CreatedJob; done: any }> {
  const job = await createJob(svc.url, owner.key, jobBody(data, { filename: JOB_FILENAME, ...extra }));
  const uploaded = await upload(job, data);
  if (uploaded.status !== 204) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
  const completed = await completeJob(job, owner.key);
  if (completed.status !== 202) throw new Error(`complete: ${completed.status} ${await completed.text()}`);
  await completed.body?.cancel();
  return { job, done: await waitForEnd(job.poll_url, owner.key) };
}

function noContentIn(t: Test, text: string, transcriptWords: string[]) {
  for (const key of [owner.key, sibling.key]) {
    t.notOk(text.includes(key), 'no API key');
    t.notOk(text.includes(key.slice(-43)), "no key's secret part");
  }
  t.notOk(text.includes(JOB_FILENAME), 'not the file name given to the job');
  t.notOk(text.includes(FORM_FILENAME), 'not the file name in the upload form');
  t.notOk(/Quorthanna|Velmirez/.test(text), 'not the prompt');
  const leaked = transcriptWords.filter((word) => text.toLowerCase().includes(word.toLowerCase()));
  t.same(leaked, [], 'no word of the transcript');
}

t.test('a job that succeeds: its whole life, by key and tenant id, and nothing of its content', async (t) => {
  const speech = await readFile(await speechWav(12));
  const { job, done } = await runJob(speech, { response_format: 'verbose_json', prompt: PROMPT });
  t.equal(done.status, 'succeeded');

  // The tenant's other key gets neither the job nor its result: 404, as for an unknown id.
  const refusedPoll = await poll(job.poll_url, sibling.key, '?include_result=true');
  t.match(refusedPoll, { status: 404, body: { error: { code: 'not_found' } } }, "the tenant's other key cannot poll it");
  t.notOk(refusedPoll.body.result, 'nor gets its result inline');
  const refusedDownload = await fetch(`${job.poll_url}/result`, { headers: auth(sibling.key) });
  t.equal(refusedDownload.status, 404, "the tenant's other key cannot download its result");
  await refusedDownload.body?.cancel();
  // The result, read by the key that created the job: inline in a poll, then downloaded.
  const inline = await poll(job.poll_url, owner.key, '?include_result=true');
  t.equal(inline.status, 200);
  t.ok(inline.body.result?.content, 'the poll carried the result');
  const download = await fetch(`${job.poll_url}/result`, { headers: auth(owner.key) });
  t.equal(download.status, 200);
  const result = (await download.json()) as { text: string };
  recordCanary('transcript', result.text.trim());
  const words = [...new Set(result.text.split(/[^\p{L}\p{N}'-]+/u).filter((w) => w.length >= MIN_WORD_LENGTH))];
  t.comment(`${words.length} transcript words of ${MIN_WORD_LENGTH}+ characters checked`);

  const lines = await auditLinesUntil(job.id, JOB_AUDIT_EVENTS.resultRead);
  const events = lines.map((l) => l.audit);
  const at = (event: string) => events.indexOf(event);
  const last = (event: string) => events.lastIndexOf(event);
  t.same(events.slice(0, 2), [JOB_AUDIT_EVENTS.created, JOB_AUDIT_EVENTS.uploadReceived], 'created, then its upload received');
  t.ok(at(JOB_AUDIT_EVENTS.accepted) > at(JOB_AUDIT_EVENTS.uploadReceived), 'then accepted');
  t.ok(at(JOB_AUDIT_EVENTS.claimed) > at(JOB_AUDIT_EVENTS.uploadReceived), 'claimed once accepted');
  t.ok(at(JOB_AUDIT_EVENTS.chunkDone) > at(JOB_AUDIT_EVENTS.claimed), 'a chunk done after a claim');
  t.ok(at(JOB_AUDIT_EVENTS.succeeded) > last(JOB_AUDIT_EVENTS.chunkDone), 'succeeded after its last chunk');
  t.ok(at(JOB_AUDIT_EVENTS.resultRead) > at(JOB_AUDIT_EVENTS.succeeded), 'the result read after');
  t.equal(at(JOB_AUDIT_EVENTS.failed), -1, 'never failed');
  for (const event of [JOB_AUDIT_EVENTS.created, JOB_AUDIT_EVENTS.uploadReceived, JOB_AUDIT_EVENTS.accepted, JOB_AUDIT_EVENTS.succeeded]) {
    t.equal(events.filter((e) => e === event).length, 1, `one ${event}`);
  }

  t.match(lines[at(JOB_AUDIT_EVENTS.created)], { status: 'awaiting_upload' });
  t.match(lines[at(JOB_AUDIT_EVENTS.uploadReceived)], { bytes: speech.length });
  const chunks = lines.filter((l) => l.audit === JOB_AUDIT_EVENTS.chunkDone);
  t.ok(chunks.length >= 2, `one line per chunk (${chunks.length})`);
  t.same(
    chunks.map((l) => l.chunkIndex),
    chunks.map((_, i) => i),
    'chunks counted from 0',
  );
  const reached = chunks.map((l) => l.completedAudioSeconds as number);
  t.same(
    reached,
    [...reached].sort((a, b) => a - b),
    'completed audio grows',
  );
  t.ok(Math.abs(reached.at(-1)! - 12) < 0.5, `all 12 s transcribed (${reached.at(-1)})`);
  t.ok(events.filter((e) => e === JOB_AUDIT_EVENTS.claimed).length >= chunks.length, 'a claim per chunk');
  t.match(lines[at(JOB_AUDIT_EVENTS.succeeded)], { audioSeconds: Number, processingSeconds: Number });

  // Steps of the owner's requests (reads included) and of the worker name the owner's key; the
  // refused requests of the tenant's other key left no line.
  for (const line of lines) {
    t.equal(line.tenantId, 'tenant-audit', `${line.audit}: the tenant id`);
    t.equal(line.keyId, owner.id, `${line.audit}: the acting key's id`);
  }
  t.same(
    lines.filter((l) => l.audit === JOB_AUDIT_EVENTS.resultRead).map((l) => l.via),
    ['poll', 'result'],
    'each read of content, with where it was served',
  );

  noContentIn(t, logs.text(), words);
});

t.test('request lines name the key and tenant of authenticated requests only', async (t) => {
  t.equal((await fetch(`${svc.url}/healthz`)).status, 200);
  const refused = await fetch(`${svc.url}/v1/jobs/job_nope`);
  t.equal(refused.status, 401);
  await refused.body?.cancel();
  const unknown = await fetch(`${svc.url}/v1/jobs/job_nope`, { headers: auth(sibling.key) });
  t.equal(unknown.status, 404);
  await unknown.body?.cancel();

  // A request's line is written once its answer has gone out, so the client can be a moment ahead.
  const completedLines = () => logs.lines().filter((l) => l.msg === 'request completed' || l.msg === 'request ended with an error');
  const deadline = Date.now() + 10_000;
  while (!completedLines().some((l) => l.route === '/v1/jobs/:job_id' && l.statusCode === 404) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const completed = completedLines();
  const byRoute = (route: string, status: number) => completed.filter((l) => l.route === route && l.statusCode === status);
  t.ok(byRoute('/healthz', 200).length > 0 && byRoute('/healthz', 200).every((l) => !('keyId' in l) && !('tenantId' in l)), 'a public route: no key');
  const poll401 = byRoute('/v1/jobs/:job_id', 401);
  t.ok(poll401.length > 0 && poll401.every((l) => !('keyId' in l) && !('tenantId' in l)), 'no key for a refused request');
  const by = (lines: LogLine[], key: { id: string }) => lines.length > 0 && lines.every((l) => l.keyId === key.id && l.tenantId === 'tenant-audit');
  t.ok(by(byRoute('/v1/jobs/:job_id', 404), sibling), 'an authenticated request: its key and tenant');
  t.ok(by(byRoute('/v1/jobs', 201), owner), 'a creation, by the owner');
  const uploads = byRoute('/v1/uploads/:job_id', 204);
  t.ok(uploads.length > 0 && uploads.every((l) => !('keyId' in l)), 'the upload form carries no key (its audit line names the owner)');
  for (const line of completed.filter((l) => 'keyId' in l)) {
    t.match(line.keyId, /^key_[0-9A-Za-z]{12}$/, 'a public key id, nothing else');
  }
});

t.test('a job that fails: failed with its error code only', async (t) => {
  const noise = await readFile(await randomBytesFile(50_000));
  const { job, done } = await runJob(noise);
  t.match(done, { status: 'failed', error: { code: 'audio_undecodable' } });
  const lines = await auditLinesUntil(job.id, JOB_AUDIT_EVENTS.failed);
  const events = lines.map((l) => l.audit);
  t.same(events.slice(0, 2), [JOB_AUDIT_EVENTS.created, JOB_AUDIT_EVENTS.uploadReceived], 'created, then its upload received');
  t.ok(events.includes(JOB_AUDIT_EVENTS.accepted) && events.includes(JOB_AUDIT_EVENTS.claimed), 'accepted and claimed');
  t.notOk(events.includes(JOB_AUDIT_EVENTS.succeeded) || events.includes(JOB_AUDIT_EVENTS.chunkDone), 'no chunk, no success');
  const failed = lines.filter((l) => l.audit === JOB_AUDIT_EVENTS.failed);
  if (!t.equal(failed.length, 1, 'one failure line')) return;
  t.same(
    failed[0],
    {
      ...pick(failed[0], ['level', 'time', 'pid', 'hostname']),
      audit: JOB_AUDIT_EVENTS.failed,
      jobId: job.id,
      keyId: owner.id,
      tenantId: 'tenant-audit',
      errorCode: 'audio_undecodable',
      msg: JOB_AUDIT_MESSAGE,
    },
    'the code, never the message',
  );
  noContentIn(t, logs.text(), []);
});

function pick(line: LogLine, fields: string[]): LogLine {
  return Object.fromEntries(fields.filter((f) => f in line).map((f) => [f, line[f]]));
}
