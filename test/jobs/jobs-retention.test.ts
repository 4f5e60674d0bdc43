// Time-driven parts of the job lifecycle with a controllable clock (upload deadlines, result retention,
// tombstones, expired forms), the 4 MiB inline limit, and a storage fault during an upload. The clock
// is injected into the service (store transitions, routes, sweeper); the storage fault is injected at
// the blob store boundary, whose real disk behaviour is tested in test/store/local-blob-store.test.ts.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import type { BlobStore } from '../../src/store/blob-store.js';
import type { TenantBlobs, TenantBlobStore } from '../../src/store/sealed-blob-store.js';
import { TestClock } from '../helpers/api-test-app.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { failingWriteStream, systemError } from '../helpers/failing-write-stream.js';
import { auth, completeJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { embeddedUploadsOnly, startTestService, type TestService } from '../helpers/test-service.js';

const HOUR = 3600;
const clock = new TestClock(Date.now());
/** Faults the test switches on: a full disk during uploads, and padding that makes results > 4 MiB. */
const faults = { diskFullAfterBytes: null as number | null, padResultsTo: 0 };

function faultyBlobs(blobs: BlobStore): BlobStore {
  return Object.assign(Object.create(blobs) as BlobStore, {
    createUploadStream(path: string) {
      const limit = faults.diskFullAfterBytes;
      if (limit === null) return blobs.createUploadStream(path);
      return failingWriteStream(blobs.createUploadStream(path), limit, () => systemError('ENOSPC'));
    },
  });
}

/** Results padded before they are sealed (beneath the sealing they are no longer JSON). */
function paddedResults(blobs: TenantBlobs): TenantBlobs {
  return Object.assign(Object.create(blobs) as TenantBlobs, {
    forTenant(tenant: string) {
      const view = blobs.forTenant(tenant);
      return Object.assign(Object.create(view) as TenantBlobStore, {
        writeResult(jobId: string, kind: Parameters<BlobStore['writeResult']>[1], data: string | Uint8Array) {
          if (kind.kind === 'final' && faults.padResultsTo > 0) {
            if (typeof data !== 'string') data = Buffer.from(data).toString('utf8');
            // Whitespace keeps it the same JSON document, only larger.
            data = data + ' '.repeat(Math.max(0, faults.padResultsTo - data.length));
          }
          return view.writeResult(jobId, kind, data);
        },
      });
    },
  });
}

let svc: TestService;
let speech: Uint8Array;

t.before(async () => {
  svc = await startTestService({ SVC_RETENTION_HOURS: '24' }, { clock: clock.now, wrapBlobs: faultyBlobs, wrapTenantBlobs: paddedResults });
  speech = await readFile(await speechWav(3));
});
t.teardown(() => svc.close());

async function finishedJob(key = svc.key, body: Record<string, unknown> = {}) {
  const job = await createJob(svc.url, key, jobBody(speech, body));
  t.equal((await uploadFile(job, speech)).status, 204);
  t.equal((await completeJob(job, key)).status, 202);
  const done = await waitForEnd(job.poll_url, key);
  return { job, done };
}

t.test('results expire after the key retention; tombstone answers expired for 72 h, then 404', async (t) => {
  const shortKey = await svc.createKey({ retentionHours: 2 });
  const { job, done } = await finishedJob(shortKey.key);
  t.equal(done.status, 'succeeded');
  t.equal(done.result.expires_in_seconds, 2 * HOUR, 'the key retention (2 h)');

  clock.advance(2 * HOUR - 1);
  t.equal((await poll(job.poll_url, shortKey.key)).body.result.expired, false, 'still there a second before');
  clock.advance(1);
  const expired = await poll(job.poll_url, shortKey.key, '?include_result=true');
  t.same(expired.body.result, { expired: true }, 'expired: no URL, no content');
  t.equal(expired.body.status, 'succeeded', 'the job stays succeeded');
  const download = await fetch(`${job.poll_url}/result`, { headers: auth(shortKey.key) });
  t.equal(download.status, 404);
  await download.body?.cancel();
  await svc.service.sweepNow();
  t.notOk((await svc.resultFiles()).includes(`${job.id}.result`), 'the result file is deleted by the sweeper');

  clock.advance(72 * HOUR - 1);
  t.same((await poll(job.poll_url, shortKey.key)).body.result, { expired: true }, 'tombstone until 72 h after expiry');
  clock.advance(1);
  t.equal((await poll(job.poll_url, shortKey.key)).status, 404, 'then gone');
  await svc.service.sweepNow();
  t.equal((await poll(job.poll_url, shortKey.key)).status, 404, 'and deleted');
});

t.test('an upload never completed fails job_expired after its deadline; its audio is deleted', { skip: embeddedUploadsOnly() }, async (t) => {
  const uploaded = await createJob(svc.url, svc.key, jobBody(speech));
  const never = await createJob(svc.url, svc.key, jobBody(speech));
  t.equal((await uploadFile(uploaded, speech)).status, 204);
  t.equal((await svc.blobFiles()).jobs.length, 1, 'the uploaded audio is stored');

  clock.advance(HOUR + 1);
  const late = await uploadFile(never, speech);
  t.equal(late.status, 403, 'the form expired');
  t.match(await late.text(), /<Code>AccessDenied<\/Code><Message>Invalid according to Policy: Policy expired\.<\/Message>/);
  t.equal((await poll(never.poll_url, svc.key)).body.status, 'awaiting_upload', 'completion is still possible for an hour');

  clock.advance(HOUR);
  await svc.service.sweepNow();
  for (const job of [uploaded, never]) {
    const body = (await poll(job.poll_url, svc.key)).body;
    t.match(body, { status: 'failed', error: { code: 'job_expired' } });
    const complete = await completeJob(job, svc.key);
    t.equal(complete.status, 409, 'too late to complete');
    t.equal(((await complete.json()) as any).error.code, 'upload_not_complete');
  }
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] }, 'the uploaded audio went with the job');
});

t.test('include_result: inline up to 4 MiB, a download link above', async (t) => {
  faults.padResultsTo = 4 * 1024 * 1024;
  const atLimit = await finishedJob();
  faults.padResultsTo = 4 * 1024 * 1024 + 1;
  const over = await finishedJob();
  faults.padResultsTo = 0;

  const inline = (await poll(atLimit.job.poll_url, svc.key, '?include_result=true')).body.result;
  t.equal(inline.inline, true, 'exactly 4 MiB is inline');
  t.type(inline.content.text, 'string');
  const big = (await poll(over.job.poll_url, svc.key, '?include_result=true')).body.result;
  t.equal(big.inline, false, 'one byte more is not');
  t.notOk('content' in big);
  const download = await fetch(big.download_url, { headers: auth(svc.key) });
  const bytes = Buffer.from(await download.arrayBuffer());
  t.equal(bytes.length, 4 * 1024 * 1024 + 1, 'the whole result from download_url');
  t.type(JSON.parse(bytes.toString('utf8')).text, 'string');
});

t.test('a full disk during an upload: 503, nothing kept or acknowledged, the form works afterwards', { skip: embeddedUploadsOnly() }, async (t) => {
  const job = await createJob(svc.url, svc.key, jobBody(speech));
  faults.diskFullAfterBytes = 16 * 1024;
  const res = await uploadFile(job, speech);
  faults.diskFullAfterBytes = null;
  t.equal(res.status, 503);
  t.ok(res.headers.get('retry-after'), 'Retry-After');
  t.match(await res.text(), /<Code>ServiceUnavailable<\/Code>/);
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] }, 'no half-written file');
  const complete = await completeJob(job, svc.key);
  t.equal(complete.status, 409, 'nothing to complete');
  await complete.body?.cancel();
  t.equal((await uploadFile(job, speech)).status, 204, 'the same form succeeds once storage is back');
  t.equal((await completeJob(job, svc.key)).status, 202);
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
});

t.test('webhook jobs keep results at least 9 hours', async (t) => {
  const { effectiveRetentionHours } = await import('../../src/jobs/job-retention.js');
  t.equal(effectiveRetentionHours({ webhookUrl: 'https://example.com/h' }, 1), 9);
  t.equal(effectiveRetentionHours({ webhookUrl: 'https://example.com/h' }, 24), 24);
  t.equal(effectiveRetentionHours({ webhookUrl: null }, 1), 1);
});
