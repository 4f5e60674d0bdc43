// POST /v1/audio/transcriptions when storage fails (disk full, data folder not writable): 503
// service_unavailable with Retry-After, no job row, no file left, nothing acknowledged; the same
// request succeeds once storage is back. Runs the real service; the fault is injected at the blob
// store boundary (the disk behaviour itself is tested in test/store/local-blob-store.test.ts): the
// upload file really is created and partly written before it fails, so its removal is real.
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';

import t, { type Test } from 'tap';

import type { BlobStore } from '../../src/store/blob-store.js';
import { databasePath, openDatabase } from '../../src/store/sqlite/database.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { failingWriteStream, systemError } from '../helpers/failing-write-stream.js';
import { waitForEnd } from '../helpers/jobs-client.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

type FaultCode = 'ENOSPC' | 'EACCES';
/** Where storage fails: opening the upload file, after some bytes of it, or moving it into job storage. */
type Fault = { at: 'open'; code: FaultCode } | { at: 'write'; code: FaultCode; afterBytes: number } | { at: 'move'; code: FaultCode };

let fault: Fault | null = null;

function faultyBlobs(blobs: BlobStore): BlobStore {
  return Object.assign(Object.create(blobs) as BlobStore, {
    createUploadStream(path: string) {
      const current = fault;
      if (current?.at === 'open') return new Writable({ construct: (done) => done(systemError(current.code)), write: (_c, _e, done) => done() });
      const real = blobs.createUploadStream(path);
      if (current?.at !== 'write') return real;
      return failingWriteStream(real, current.afterBytes, () => systemError(current.code));
    },
    async moveToJobAudio(tempPath: string, jobId: string) {
      if (fault?.at === 'move') throw systemError(fault.code);
      return blobs.moveToJobAudio(tempPath, jobId);
    },
  });
}

let svc: TestService;
let short: Uint8Array; // 3 s: answered inline
let long: Uint8Array; // 12 s: above the 8 s boundary used here, so a job
let jobCount: () => number;

t.before(async () => {
  svc = await startTestService({ SVC_INLINE_BOUNDARY_SECONDS: '8' }, { wrapBlobs: faultyBlobs });
  short = await readFile(await speechWav(3));
  long = await readFile(await speechWav(12));
  const db = openDatabase(databasePath(svc.dataDir));
  t.teardown(() => db.close());
  const count = db.prepare('SELECT COUNT(*) AS n FROM jobs');
  jobCount = () => (count.get() as { n: number }).n;
});
t.teardown(() => svc.close());

const fields = { model: 'svc-medical-1', response_format: 'json' };
const wav = (data: Uint8Array) => ({ data, name: 'visit.wav', type: 'audio/wav' });

async function expectStorage503(t: Test, res: Response) {
  t.equal(res.status, 503, 'status 503');
  t.match(res.headers.get('retry-after'), /^[1-9]\d*$/, 'Retry-After in whole seconds');
  const body = (await res.json()) as { error: { code: string; message: string } };
  t.same(Object.keys(body), ['error']);
  t.equal(body.error.code, 'service_unavailable');
  t.notMatch(body.error.message, /ENOSPC|EACCES|blobs|\.part|\//, 'no system error text or path');
  t.equal(jobCount(), 0, 'no job row');
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] }, 'no upload or job audio left');
  t.same(await svc.resultFiles(), [], 'no result left');
}

const cases: Array<{ name: string; fault: Fault; size: 'inline' | 'job' }> = [];
for (const code of ['ENOSPC', 'EACCES'] as const) {
  for (const size of ['inline', 'job'] as const) {
    cases.push({ name: `${code} writing the upload (${size}-sized)`, fault: { at: 'write', code, afterBytes: 16 * 1024 }, size });
    cases.push({ name: `${code} opening the upload file (${size}-sized)`, fault: { at: 'open', code }, size });
  }
  cases.push({ name: `${code} moving a job-sized upload into job storage`, fault: { at: 'move', code }, size: 'job' });
}

t.test('a storage fault is a 503 service_unavailable with Retry-After, and leaves nothing', async (t) => {
  for (const { name, fault: injected, size } of cases) {
    await t.test(name, async (t) => {
      fault = injected;
      try {
        const res = await postTranscription(svc.url, svc.key, fields, wav(size === 'inline' ? short : long), { 'idempotency-key': `fault-${name}` });
        await expectStorage503(t, res);
      } finally {
        fault = null;
      }
    });
  }
});

t.test('once storage is back the same requests succeed (an Idempotency-Key used in a fault is not held)', async (t) => {
  const inline = await postTranscription(svc.url, svc.key, fields, wav(short));
  t.equal(inline.status, 200);
  t.type(((await inline.json()) as { text: unknown }).text, 'string');

  const accepted = await postTranscription(svc.url, svc.key, fields, wav(long), {
    'idempotency-key': 'fault-ENOSPC moving a job-sized upload into job storage',
  });
  t.equal(accepted.status, 202);
  const job = (await accepted.json()) as { poll_url: string };
  t.equal(jobCount(), 1, 'one job row');
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] });
});
