// A long poll returns on every state change of its job: `accepted` -> `running` too, not only when a
// chunk or the job ends. The service has one worker loop; a gate at the blob store boundary (the
// audio a worker opens) holds a job's first chunk, so the test decides when each job can progress:
// the polled job is provably `accepted` when the poll starts, and is still without any provisional
// result when the poll answers. (The worker's claim notice answers it at once; a poll also re-reads
// the job every 2 s to re-check its key, which is only the fallback for a lost notice.)
import { readFile } from 'node:fs/promises';

import t from 'tap';

import type { TenantBlobs, TenantBlobStore } from '../../src/store/sealed-blob-store.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { completeJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

/** Job ids whose audio may not be opened yet, each with the gate that lets it open. */
const gates = new Map<string, { open: () => void; opened: Promise<void> }>();
function gate(jobId: string): () => void {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  gates.set(jobId, { open, opened });
  return open;
}

function gatedBlobs(blobs: TenantBlobs): TenantBlobs {
  return Object.assign(Object.create(blobs) as TenantBlobs, {
    forTenant(tenant: string) {
      const view = blobs.forTenant(tenant);
      return Object.assign(Object.create(view) as TenantBlobStore, {
        async audioSource(ref: string, seconds?: number) {
          for (const [jobId, { opened }] of gates) if (ref.includes(jobId)) await opened;
          return view.audioSource(ref, seconds);
        },
      });
    },
  });
}

let svc: TestService;
let speech: Uint8Array;

t.before(async () => {
  svc = await startTestService({ SVC_WORKERS: '1', SVC_JOB_CHUNK_SECONDS: '5' }, { wrapTenantBlobs: gatedBlobs });
  speech = await readFile(await speechWav(12));
});
t.teardown(() => svc.close());

async function uploadedJob() {
  const job = await createJob(svc.url, svc.key, jobBody(speech));
  t.equal((await uploadFile(job, speech)).status, 204);
  return job;
}

t.test('a long poll on an accepted job answers when a worker takes it', async (t) => {
  // The only worker loop takes `busy` and waits at its gate: `polled` cannot be claimed meanwhile.
  const busy = await uploadedJob();
  const releaseBusy = gate(busy.id);
  t.equal((await completeJob(busy, svc.key)).status, 202);
  for (let i = 0; (await poll(busy.poll_url, svc.key)).body.status !== 'running'; i++) {
    if (i > 200) throw new Error('the busy job was never claimed');
    await new Promise((r) => setTimeout(r, 25));
  }
  const polled = await uploadedJob();
  const releasePolled = gate(polled.id);
  t.equal((await completeJob(polled, svc.key)).status, 202);
  t.equal((await poll(polled.poll_url, svc.key)).body.status, 'accepted', 'waiting for the busy worker');

  const started = Date.now();
  const waiting = poll(polled.poll_url, svc.key, '?wait=30');
  await new Promise((r) => setTimeout(r, 300));
  releaseBusy(); // the busy job's chunk ends; the loop takes `polled` next (fairness: one chunk per claim)
  const answered = await waiting;
  t.equal(answered.body.status, 'running', 'answered on accepted -> running');
  t.notOk(answered.body.transcription, 'before any chunk of it was done (its audio is still held)');
  t.ok(Date.now() - started < 25_000, 'well before the wait ran out');

  releasePolled();
  t.equal((await waitForEnd(polled.poll_url, svc.key)).status, 'succeeded');
  t.equal((await waitForEnd(busy.poll_url, svc.key)).status, 'succeeded');
});
