// Issue 48's proof for blobs: a real service job (the embedded default here; PostgreSQL and the
// loopback S3 server in test/scale-out/sealed-blobs-at-rest.pg-s3.test.ts) whose upload carries a
// known byte pattern. Every blob the service stores (caught beneath the sealing as it is written),
// the data folder and the bucket's objects hold neither the pattern nor a plain JSON result, while
// the result still reads back through the API.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import t, { type Test } from 'tap';

import type { BlobStore } from '../../src/store/blob-store.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { embeddedUploadsOnly, postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

/** What every plain JSON result holds. */
const JSON_TEXT_KEY = Buffer.from('"text"');

/** The blobs written beneath the sealing: job audio, results, redacted copies, as they are stored. */
function recordingBlobs(written: Array<{ kind: string; bytes: Buffer }>) {
  return (blobs: BlobStore): BlobStore =>
    Object.assign(Object.create(blobs) as BlobStore, {
      moveToJobAudio: async (tempPath: string, jobId: string) => {
        written.push({ kind: 'audio', bytes: await readFile(tempPath) });
        return blobs.moveToJobAudio(tempPath, jobId);
      },
      writeResult: async (jobId: string, result: Parameters<BlobStore['writeResult']>[1], data: string | Uint8Array) => {
        written.push({ kind: result.kind, bytes: Buffer.from(data) });
        return blobs.writeResult(jobId, result, data);
      },
      moveToResult: async (tempPath: string, jobId: string, result: Parameters<BlobStore['moveToResult']>[2]) => {
        written.push({ kind: result.kind, bytes: await readFile(tempPath) });
        return blobs.moveToResult(tempPath, jobId, result);
      },
    });
}

/** Every file under the data folder, with its bytes. */
async function dataFiles(dir: string): Promise<Array<{ name: string; bytes: Buffer }>> {
  const names = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    names
      .filter((entry) => entry.isFile())
      .map(async (entry) => ({ name: join(entry.parentPath, entry.name), bytes: await readFile(join(entry.parentPath, entry.name)) })),
  );
}

/** Every object in the test bucket, with its bytes (none without S3). */
async function bucketObjects(svc: TestService): Promise<Array<{ name: string; bytes: Buffer }>> {
  const s3 = svc.s3;
  if (!s3) return [];
  const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: s3.credentials });
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
    return Promise.all(
      (listed.Contents ?? []).map(async ({ Key }) => ({
        name: Key!,
        bytes: Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: Key! }))).Body!.transformToByteArray()),
      })),
    );
  } finally {
    client.destroy();
  }
}

/** The recording a job uploads, and 64 bytes of its samples from its middle: the pattern it is known to carry. */
async function recording() {
  const speech = await readFile(await speechWav(12));
  const pattern = speech.subarray(speech.length >> 1, (speech.length >> 1) + 64);
  return { speech, pattern };
}

/** Every blob stored beneath the sealing is sealed; neither they nor the data folder or the bucket hold the pattern or plain JSON. */
async function checkNothingPlain(t: Test, svc: TestService, written: Array<{ kind: string; bytes: Buffer }>, pattern: Buffer) {
  t.ok(new Set(pattern).size > 16, 'the pattern is varied bytes, not silence');
  t.ok(
    written.some((blob) => blob.kind === 'audio'),
    'the job audio was stored',
  );
  t.ok(
    written.some((blob) => blob.kind === 'final'),
    'the result was stored',
  );
  for (const blob of written) {
    t.equal(blob.bytes.subarray(0, 4).toString('latin1'), 'SSS1', `${blob.kind}: stored sealed`);
    t.notOk(blob.bytes.includes(pattern), `${blob.kind}: not the upload's bytes`);
    t.notOk(blob.bytes.includes(JSON_TEXT_KEY), `${blob.kind}: no plain JSON`);
  }
  for (const { name, bytes } of [...(await dataFiles(svc.dataDir)), ...(await bucketObjects(svc))]) {
    t.notOk(bytes.includes(pattern), `${name} does not hold the upload's bytes`);
    if (/\/(?:results|jobs)\//.test(name)) t.notOk(bytes.includes(JSON_TEXT_KEY), `${name} holds no plain result`);
  }
}

t.test('a job: its audio and results are stored sealed, found nowhere plain, and still read back', async (t) => {
  const written: Array<{ kind: string; bytes: Buffer }> = [];
  const svc = await startTestService({ SVC_INLINE_BOUNDARY_SECONDS: '5', SVC_JOB_CHUNK_SECONDS: '5' }, { wrapBlobs: recordingBlobs(written) });
  t.teardown(() => svc.close());
  const { speech, pattern } = await recording();

  const res = await postTranscription(
    svc.url,
    svc.key,
    { model: 'svc-medical-1', response_format: 'json' },
    { data: speech, name: 'visit.wav', type: 'audio/wav' },
  );
  t.equal(res.status, 202, 'a job');
  const job = (await res.json()) as { id: string; poll_url: string };
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');

  // Read back through the API: the download and the poll's inline copy agree, and are the result JSON.
  const download = await fetch(`${svc.url}/v1/jobs/${job.id}/result`, { headers: auth(svc.key) });
  t.equal(download.status, 200);
  const body = Buffer.from(await download.arrayBuffer());
  t.ok(body.includes(JSON_TEXT_KEY), 'the result is JSON with its text');
  const inline = (await poll(job.poll_url, svc.key, '?include_result=true')).body.result;
  t.same(inline.content, JSON.parse(body.toString('utf8')), 'the poll reads the same result');
  await checkNothingPlain(t, svc, written, pattern);
});

t.test('a presigned upload to the embedded target is sealed as it streams in', { skip: embeddedUploadsOnly() }, async (t) => {
  const written: Array<{ kind: string; bytes: Buffer }> = [];
  const svc = await startTestService({ SVC_JOB_CHUNK_SECONDS: '5' }, { wrapBlobs: recordingBlobs(written) });
  t.teardown(() => svc.close());
  const { speech, pattern } = await recording();
  const job = await createJob(svc.url, svc.key, jobBody(speech));
  t.equal((await uploadFile(job, speech)).status, 204);
  t.equal((await completeJob(job, svc.key)).status, 202);
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
  await checkNothingPlain(t, svc, written, pattern);
});

t.test(
  'a file posted straight to the bucket is sealed when it is collected, and its plain copies go',
  { skip: embeddedUploadsOnly() === false && 'no bucket: uploads go to the embedded target' },
  async (t) => {
    const svc = await startTestService({ SVC_JOB_CHUNK_SECONDS: '5' });
    t.teardown(() => svc.close());
    const { speech, pattern } = await recording();
    const job = await createJob(svc.url, svc.key, jobBody(speech));
    t.equal((await uploadFile(job, speech)).status, 204);
    t.ok(
      (await bucketObjects(svc)).some((o) => o.bytes.includes(pattern)),
      'the bucket took it plain from the client',
    );
    t.equal((await completeJob(job, svc.key)).status, 202);
    const objects = await bucketObjects(svc);
    const audio = objects.filter((o) => o.name.startsWith('jobs/'));
    t.equal(audio.length, 1, 'one job audio object');
    t.equal(audio[0]?.bytes.subarray(0, 4).toString('latin1'), 'SSS1', 'stored sealed');
    t.notOk(
      objects.some((o) => o.bytes.includes(pattern)),
      'no plain copy left: neither the upload object nor the collected copy',
    );
    t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded', 'the job reads its sealed audio');
  },
);
