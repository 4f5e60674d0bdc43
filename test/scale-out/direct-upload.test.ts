// Presigned uploads straight to the bucket (PostgreSQL + S3 on s3rver): the job's form is S3's own
// POST policy, so the file never passes through the API; `complete` collects the object, refusing
// one of another size (and removing it, so the same form can be posted again); a completed job's
// audio cannot be changed by posting the form again, and what the bucket keeps that no job owns
// is swept. s3rver does not enforce the policy (test/store/s3-blob-store.test.ts checks what we sign).
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { TestClock } from '../helpers/api-test-app.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

process.env.SVC_TEST_STORES = 'postgres+s3';
const HOUR = 3600;
const clock = new TestClock(Date.now());
let svc: TestService;
let speech: Uint8Array;

t.before(async () => {
  svc = await startTestService({}, { clock: clock.now });
  speech = await readFile(await speechWav(3));
});
t.teardown(() => svc.close());

t.test('the form posts to the bucket; complete collects exactly the declared file', async (t) => {
  const job = await createJob(svc.url, svc.key, jobBody(speech));
  t.ok(job.upload.url.startsWith(svc.s3!.endpoint), 'the bucket, not an API process, takes the file');
  t.match(job.upload.fields, {
    key: `uploads/${job.id}`,
    'Content-Type': 'audio/wav',
    'x-amz-server-side-encryption': 'AES256',
    Policy: String,
    'X-Amz-Signature': String,
  });
  const conditions = (JSON.parse(Buffer.from(job.upload.fields.Policy!, 'base64').toString('utf8')) as { conditions: unknown[] }).conditions;
  t.ok(
    conditions.some((c) => JSON.stringify(c) === '{"x-amz-server-side-encryption":"AES256"}'),
    "the signed policy requires the bucket's own encryption (SSE-S3) of the file",
  );
  t.notOk('x-svc-signature' in job.upload.fields);
  t.equal((await fetch(`${svc.url}/v1/uploads/${job.id}`, { method: 'POST' })).status, 404, 'no embedded upload route');

  const early = await completeJob(job, svc.key);
  t.equal(early.status, 409, 'nothing uploaded yet');
  t.match(await early.json(), { error: { code: 'upload_not_complete' } });

  t.equal((await uploadFile(job, speech.subarray(0, speech.length - 1))).status, 204, 's3rver keeps a short file (S3 itself would refuse it)');
  const short = await completeJob(job, svc.key);
  t.equal(short.status, 409);
  t.match(await short.json(), { error: { code: 'upload_not_complete', message: /content_length_bytes/ } });
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] }, 'the wrong file is gone');

  t.equal((await uploadFile(job, speech)).status, 204);
  t.equal((await completeJob(job, svc.key)).status, 202);
  t.equal((await completeJob(job, svc.key)).status, 202, 'completing again changes nothing');
  t.match(await waitForEnd(job.poll_url, svc.key), { status: 'succeeded' });
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] }, 'the audio went when the job ended');
  t.same(await svc.resultFiles(), [`${job.id}.result`]);
  const result = await fetch(`${job.poll_url}/result`, { headers: auth(svc.key) });
  t.equal(result.status, 200, 'the result streams from the bucket');
  t.match(await result.json(), { text: String });

  // The form still works until it expires: the object it leaves is nobody's audio, and the sweeper removes it.
  t.equal((await uploadFile(job, speech)).status, 204);
  t.equal((await svc.blobFiles()).uploads.length, 1);
  await svc.service.sweepNow();
  t.equal((await svc.blobFiles()).uploads.length, 1, 'young objects are left alone (an upload may be on its way)');
  svc.s3!.ageObject(`uploads/${job.id}`, 2 * HOUR * 1000);
  await svc.service.sweepNow();
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] }, 'an old one whose job is not waiting for it is swept');
});

t.test('a file posted before the form expired can be completed within the grace hour', async (t) => {
  const job = await createJob(svc.url, svc.key, jobBody(speech));
  t.equal((await uploadFile(job, speech)).status, 204);
  clock.advance(HOUR + 60);
  t.equal((await completeJob(job, svc.key)).status, 202, 'the form has expired, the job has not');
  t.match(await waitForEnd(job.poll_url, svc.key), { status: 'succeeded' });
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] });
});

t.test('an upload never completed is removed with its slot at the deadline', async (t) => {
  const job = await createJob(svc.url, svc.key, jobBody(speech));
  t.equal((await uploadFile(job, speech)).status, 204);
  t.equal((await svc.blobFiles()).uploads.length, 1);
  clock.advance(2 * HOUR + 1);
  await svc.service.sweepNow();
  t.match((await poll(job.poll_url, svc.key)).body, { status: 'failed', error: { code: 'job_expired' } });
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] });
});
