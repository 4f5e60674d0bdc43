// The scale-out crash test (issue 12): one `serve --role api` and two `serve --role worker`
// processes on one PostgreSQL database and one bucket process 6 jobs; one worker is SIGKILLed while
// it holds a job's lease. Every job still ends `succeeded`, exactly once (one result object each,
// nothing provisional left), no audio is left in the bucket, the dead worker's instance is reaped,
// and a long poll on the api process wakes when a worker finishes. Then SIGTERM stops the others cleanly.
import { readFile } from 'node:fs/promises';

import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import t from 'tap';

import { openPostgres } from '../../src/store/postgres/database.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { completeJob, type CreatedJob, createJob, jobBody, poll, uploadFile } from '../helpers/jobs-client.js';
import { startScaleOutCluster } from '../helpers/scale-out-cluster.js';
import { testModelPath } from '../helpers/test-models.js';

const JOBS = 6;

t.test('1 api + 2 workers, one worker killed mid-batch: nothing lost, nothing twice, no audio left', async (t) => {
  const cluster = await startScaleOutCluster({
    workers: 2,
    // The tiny architecture on one thread: a chunk takes long enough that the kill lands inside one.
    env: { SVC_MODEL: await testModelPath('tiny'), SVC_THREADS_PER_WORKER: '1', SVC_JOB_CHUNK_SECONDS: '5', SVC_INSTANCE_TTL_MS: '3000', SVC_DRAIN_MS: '2000' },
  });
  t.teardown(() => cluster.close());
  const db = await openPostgres(cluster.databaseUrl);
  t.teardown(() => db.close());
  const audio = await readFile(await speechWav(8)); // two chunks of at most 5 s
  const { api, key } = cluster;

  const jobs: CreatedJob[] = [];
  for (let i = 0; i < JOBS; i++) {
    const job = await createJob(api.url, key, jobBody(audio, { language: 'en' }));
    t.equal((await uploadFile(job, audio)).status, 204);
    jobs.push(job);
  }
  // The victim is identified by its instance (the prefix of the leases it holds).
  const victim = cluster.workers[0];
  const victimInstance = ((await (await fetch(`${victim.url}/healthz`)).json()) as { instance: string }).instance;
  for (const job of jobs.slice(0, JOBS - 1)) t.equal((await completeJob(job, key)).status, 202);

  let held: string | null = null;
  for (let i = 0; i < 600 && held === null; i++) {
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM jobs WHERE status = 'running' AND lease_owner LIKE $1 LIMIT 1`, [`${victimInstance}/%`]);
    held = rows[0]?.id ?? null;
    if (held === null) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  t.ok(held, 'the victim holds a lease');
  await cluster.killWorker(victim);
  // What the dead process held: its lease owner stays on the rows until another worker claims them.
  const heldAtDeath = (await db.query<{ id: string }>('SELECT id FROM jobs WHERE lease_owner LIKE $1', [`${victimInstance}/%`])).rows.map((r) => r.id);
  t.ok(heldAtDeath.length >= 1, `the victim died holding ${heldAtDeath.length} lease(s)`);

  // The last job is completed after the crash, with a long poll on the api waiting for it.
  const last = jobs[JOBS - 1];
  const waited = (async () => {
    const started = Date.now();
    let body = (await poll(last.poll_url, key)).body;
    // As long as the batch may take (below): on a slow box the survivor alone needs minutes for the jobs.
    while (body.status !== 'succeeded' && body.status !== 'failed' && Date.now() - started < 300_000) {
      body = (await poll(last.poll_url, key, '?wait=30')).body;
    }
    return body;
  })();
  t.equal((await completeJob(last, key)).status, 202);

  const deadline = Date.now() + 300_000;
  let states: Record<string, number>;
  for (;;) {
    const { rows } = await db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM jobs GROUP BY status');
    states = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    if ((states.succeeded ?? 0) + (states.failed ?? 0) === JOBS || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  t.same(states, { succeeded: JOBS }, 'every job succeeded');
  t.match(await waited, { status: 'succeeded' }, 'the long poll on the api saw the worker finish');
  for (const id of heldAtDeath) {
    const row = (await db.query('SELECT status, lease_owner FROM jobs WHERE id = $1', [id])).rows[0];
    t.same(row, { status: 'succeeded', lease_owner: null }, 'the chunk the dead worker held was run again by the survivor');
  }

  for (const job of jobs) {
    const { status, body } = await poll(job.poll_url, key);
    t.equal(status, 200);
    t.equal(body.status, 'succeeded', job.id);
  }
  const bucket = new S3Client({ endpoint: cluster.s3.endpoint, region: cluster.s3.region, forcePathStyle: true, credentials: cluster.s3.credentials });
  t.teardown(() => bucket.destroy());
  const list = async (prefix: string) =>
    ((await bucket.send(new ListObjectsV2Command({ Bucket: cluster.s3.bucket, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!).sort();
  t.same(await list('results/'), jobs.map((job) => `results/${job.id}.result`).sort(), 'one final result per job, nothing provisional');
  t.same(await list('jobs/'), [], 'no job audio left');
  t.same(await list('uploads/'), [], 'no upload left');

  let instances: string[] = [];
  for (let i = 0; i < 100; i++) {
    instances = (await db.query<{ id: string }>('SELECT id FROM service_instances')).rows.map((r) => r.id);
    if (!instances.includes(victimInstance)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.notOk(instances.includes(victimInstance), 'the dead worker was reaped');
  t.equal(instances.length, 2, 'the api and the surviving worker remain');

  // A graceful stop of each role: SIGTERM drains, deregisters and exits 0.
  for (const process_ of [cluster.workers[1], api]) {
    process_.child.kill('SIGTERM');
    t.equal(await process_.exited, 0, 'SIGTERM: exit 0');
  }
  t.equal((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM service_instances')).rows[0].n, 0, 'both deregistered');
});
