// redact_audio on jobs (issue 45.4): the real service, engine, store, blobs and ffmpeg. A generated
// model's words are noise, so what a job redacts is whatever it redacts: what is asserted holds
// whatever that is — the copy is silent over each of the result's redactions, padded, and the
// original's samples elsewhere; it is fetched like the result, by the job's key only; the original
// audio is gone; and a copy that cannot be made costs the job nothing but the copy.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import t, { type Test } from 'tap';

import { decodeAudio, padAndMergeSpans } from '../../src/audio/index.js';
import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
import { REDACTION_PAD_SECONDS } from '../../src/jobs/job-redacted-audio.js';
import type { BlobStore, ResultKind } from '../../src/store/blob-store.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, jobBody, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let speechPath: string;
let speech: Uint8Array;
/** Set by a test: the store refuses to keep the copy, as a full disk would. */
let failCopy = false;

function failingCopies(blobs: BlobStore): BlobStore {
  return Object.assign(Object.create(blobs) as BlobStore, {
    async moveToResult(tempPath: string, jobId: string, result: ResultKind) {
      if (failCopy) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      return blobs.moveToResult(tempPath, jobId, result);
    },
  });
}

t.before(async () => {
  svc = await startTestService({}, { wrapBlobs: failingCopies });
  speechPath = await speechWav(4);
  speech = await readFile(speechPath);
});
t.teardown(() => svc.close());

async function runJob(t: Test, key: string, extra: Record<string, unknown>) {
  const job = await createJob(svc.url, key, jobBody(speech, { response_format: 'verbose_json', ...extra }));
  t.ok((await uploadFile(job, speech)).status < 300, 'uploaded');
  t.equal((await completeJob(job, key)).status, 202);
  const done = await waitForEnd(job.poll_url, key);
  t.equal(done.status, 'succeeded');
  return { job, done };
}

async function leftBehind(jobId: string) {
  const files = await svc.blobFiles();
  return { audio: files.jobs.filter((name) => name.startsWith(jobId)), spooled: files.uploads.filter((name) => name.startsWith('redacted-')) };
}

t.test('the copy: silent over each redaction padded, the original elsewhere, fetched like the result, the original gone', async (t) => {
  const key = await svc.createKey({ tenant: 'redacted-audio' });
  const { job, done } = await runJob(t, key.key, { redact: 'all', redact_audio: true });
  t.same(done.result.redacted_audio, { status: 'ready', download_url: `${job.poll_url}/redacted_audio`, content_type: 'audio/wav' });
  const res = await fetch(done.result.redacted_audio.download_url, { headers: auth(key.key) });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'audio/wav');
  const copyPath = join(t.testdir(), 'copy.wav');
  await writeFile(copyPath, Buffer.from(await res.arrayBuffer()));
  const result = (await (await fetch(done.result.download_url, { headers: auth(key.key) })).json()) as { redactions: Array<{ start: number; end: number }> };
  t.comment(`${result.redactions.length} redactions`);
  const spans = padAndMergeSpans(result.redactions, REDACTION_PAD_SECONDS);
  const original = await decodeAudio(speechPath, { maxSeconds: 60, timeoutMs: 30_000 });
  const copy = await decodeAudio(copyPath, { maxSeconds: 60, timeoutMs: 30_000 });
  t.equal(copy.length, original.length, 'as long as the original');
  const muted = (i: number) => spans.some((s) => i >= Math.round(s.start * SAMPLE_RATE) && i < Math.round(s.end * SAMPLE_RATE));
  let loudInside = 0;
  let changedOutside = 0;
  for (let i = 0; i < copy.length; i += 1) {
    if (muted(i)) loudInside += copy[i] === 0 ? 0 : 1;
    else changedOutside += copy[i] === original[i] ? 0 : 1;
  }
  t.equal(loudInside, 0, 'silent over every padded redaction');
  t.equal(changedOutside, 0, 'the original everywhere else');

  t.match(await svc.stores.jobs.get(job.id, key.tenant), { audioPath: null, redactedAudioPath: /redacted-audio$/ });
  t.same(await leftBehind(job.id), { audio: [], spooled: [] }, 'the original audio is deleted, nothing spooled is left');
  t.ok((await svc.resultFiles()).includes(`${job.id}.redacted-audio`), 'kept beside the result');

  const other = await svc.createKey({ tenant: 'redacted-audio-other' });
  const foreign = await fetch(done.result.redacted_audio.download_url, { headers: auth(other.key) });
  t.equal(foreign.status, 404, "another tenant's key: as if there were no job");
  t.equal(((await foreign.json()) as { error: { code: string } }).error.code, 'not_found');
});

t.test('a job that did not ask has none: nothing in the view, 404 from the route', async (t) => {
  const key = await svc.createKey({ tenant: 'redacted-audio-none' });
  const { job, done } = await runJob(t, key.key, { redact: 'identifiers' });
  t.notOk('redacted_audio' in done.result, 'not advertised');
  const res = await fetch(`${job.poll_url}/redacted_audio`, { headers: auth(key.key) });
  t.equal(res.status, 404);
  const body = (await res.json()) as { error: { code: string; message: string } };
  t.equal(body.error.code, 'not_found');
  t.match(body.error.message, /no redacted audio/);
  t.notOk((await svc.resultFiles()).includes(`${job.id}.redacted-audio`));
});

t.test('a copy that cannot be made: the job succeeds with its transcript, the copy is unavailable, nothing is left behind', async (t) => {
  const key = await svc.createKey({ tenant: 'redacted-audio-fails' });
  failCopy = true;
  t.teardown(() => {
    failCopy = false;
  });
  const { job, done } = await runJob(t, key.key, { redact: 'all', redact_audio: true });
  t.same(done.result.redacted_audio, { status: 'unavailable' });
  t.equal((await fetch(done.result.download_url, { headers: auth(key.key) })).status, 200, 'the transcript is served');
  t.equal((await fetch(`${job.poll_url}/redacted_audio`, { headers: auth(key.key) })).status, 404);
  t.match(await svc.stores.jobs.get(job.id, key.tenant), { audioPath: null, redactedAudioPath: null });
  t.same(await leftBehind(job.id), { audio: [], spooled: [] }, 'neither the original nor a part of the copy');
  t.notOk((await svc.resultFiles()).includes(`${job.id}.redacted-audio`));
});
