// redact_output=redacted_and_unredacted on jobs (issue 45): the real service, engine, store, blobs,
// over several chunks. A generated model's words are noise, so what is asserted holds whatever was
// said: the result is redacted as always, and the unredacted copy is the same transcript (same
// segments, same times) with the redacted passages' words left in and no redaction fields; it is
// fetched only by the key that created the job, advertised in the view, kept as one blob (the
// provisional copies are gone), noted in the audit trail without content, and released with the result.
import { readFile } from 'node:fs/promises';

import t, { type Test } from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, jobBody, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { captureLogs } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let speech: Uint8Array;
let logs: ReturnType<typeof captureLogs>;

t.before(async () => {
  logs = captureLogs();
  svc = await startTestService({ SVC_JOB_CHUNK_SECONDS: '5' }, { logger: { level: 'info', stream: logs.stream } });
  speech = await readFile(await speechWav(12));
});
t.teardown(() => svc.close());

interface Transcript {
  text: string;
  segments: Array<{ text: string; start: number; end: number }>;
  redactions?: Array<{ start: number; end: number }>;
  redaction_counts?: object;
}

async function runJob(t: Test, key: string, extra: Record<string, unknown>) {
  const job = await createJob(svc.url, key, jobBody(speech, { response_format: 'verbose_json', ...extra }));
  t.ok((await uploadFile(job, speech)).status < 300, 'uploaded');
  t.equal((await completeJob(job, key)).status, 202);
  const done = await waitForEnd(job.poll_url, key);
  t.equal(done.status, 'succeeded');
  return { job, done };
}

t.test('both kept: the redacted result as always, the unredacted copy beside it for the creating key only', async (t) => {
  const key = await svc.createKey({ tenant: 'unredacted' });
  const { job, done } = await runJob(t, key.key, { redact: 'all', redact_output: 'redacted_and_unredacted' });
  t.same(done.result.unredacted_result, { download_url: `${job.poll_url}/unredacted_result`, content_type: done.result.content_type });
  const result = (await (await fetch(done.result.download_url, { headers: auth(key.key) })).json()) as Transcript;
  const res = await fetch(done.result.unredacted_result.download_url, { headers: auth(key.key) });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), done.result.content_type, 'the format of the result');
  const copy = (await res.json()) as Transcript;
  t.ok(Array.isArray(result.redactions), 'the result is redacted');
  t.notOk('redactions' in copy || 'redaction_counts' in copy, 'the copy says nothing of redaction');
  t.ok(result.segments.length > 1, `several segments (${result.segments.length}) over several chunks`);
  t.same(
    copy.segments.map((s) => [s.start, s.end]),
    result.segments.map((s) => [s.start, s.end]),
    'the same segments at the same times',
  );
  const redacted = (s: { start: number; end: number }) => result.redactions!.some((r) => r.start < s.end && r.end > s.start);
  let untouched = 0;
  for (const [i, s] of result.segments.entries()) {
    if (redacted(s)) t.not(copy.segments[i].text, s.text, `segment ${i}: the copy has the words redacted from it`);
    else if (copy.segments[i].text === s.text) untouched += 1;
  }
  t.equal(untouched, result.segments.filter((s) => !redacted(s)).length, 'every segment without a redaction reads the same');
  t.comment(`${result.redactions!.length} redactions`);

  const files = await svc.resultFiles();
  t.ok(files.includes(`${job.id}.unredacted`), 'kept beside the result');
  t.same(
    files.filter((name) => name.startsWith(`${job.id}.unredacted-`)),
    [],
    'no provisional copy left',
  );
  t.match(await svc.stores.jobs.get(job.id, key.tenant), { unredactedPath: /unredacted$/ });

  const succeeded = logs.lines().find((l) => l.audit === 'job.succeeded' && l.jobId === job.id);
  t.match(succeeded, { unredactedKept: true }, 'the audit line says a copy was kept');
  t.notOk(logs.text().includes(copy.text) && copy.text.length > 3, 'and never what it says');
  const read = logs.lines().find((l) => l.via === 'unredacted_result' && l.jobId === job.id);
  t.ok(read, 'each read is audited');

  const sibling = await svc.createKey({ tenant: 'unredacted' });
  const other = await fetch(done.result.unredacted_result.download_url, { headers: auth(sibling.key) });
  t.equal(other.status, 404, 'another key of the same tenant: as if there were no job');
  t.equal(((await other.json()) as { error: { code: string } }).error.code, 'not_found');
});

t.test('not asked: the copy is neither kept nor advertised', async (t) => {
  const key = await svc.createKey({ tenant: 'unredacted-none' });
  const { job, done } = await runJob(t, key.key, { redact: 'identifiers', redact_output: 'redacted' });
  t.notOk('unredacted_result' in done.result);
  const res = await fetch(`${job.poll_url}/unredacted_result`, { headers: auth(key.key) });
  t.equal(res.status, 404);
  t.match(((await res.json()) as { error: { message: string } }).error.message, /no unredacted result/);
  t.notOk(
    (await svc.resultFiles()).some((name) => name.startsWith(`${job.id}.unredacted`)),
    'nothing stored',
  );
});
