// The api and worker roles on one PostgreSQL database (in one test process, as two services with
// their own instances, stores and notices): the api accepts and stores, the worker runs the job,
// the long poll on the api answers when the worker finishes; the worker serves only health and
// metrics. Then the database goes away: readiness fails, requests get 503 and nothing is stored,
// and both come back when it returns.
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t from 'tap';

import { openPostgres } from '../../src/store/postgres/database.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, createJobRequest, jobBody, poll, uploadFile } from '../helpers/jobs-client.js';
import { sharedPostgres } from '../helpers/postgres-server.js';
import { startTestService } from '../helpers/test-service.js';

t.test('api and worker processes share the work through the database', async (t) => {
  const server = await sharedPostgres();
  const url = await server.createDatabase();
  const db = await openPostgres(url);
  t.teardown(() => db.close());
  // One data folder: the blobs are on local disk here (one machine); the upload secret is the api's.
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-roles-'));
  const api = await startTestService({ SVC_DATABASE_URL: url, SVC_ROLE: 'api', SVC_DATA_DIR: dataDir });
  t.teardown(() => api.close());
  const worker = await startTestService({ SVC_DATABASE_URL: url, SVC_ROLE: 'worker', SVC_DATA_DIR: dataDir });
  t.teardown(() => worker.close());
  t.ok(api.key, 'the api created the first key');
  t.equal(worker.service.firstKey, null, 'a worker creates no key');
  t.same(
    (await db.query('SELECT role FROM service_instances ORDER BY role')).rows.map((r) => r.role),
    ['api', 'worker'],
  );

  t.equal((await fetch(`${worker.url}/v1/jobs`, { method: 'POST', headers: auth(api.key) })).status, 404, 'a worker serves no API');
  t.same(await (await fetch(`${worker.url}/readyz`)).json(), { status: 'ready', role: 'worker', checks: { database: 'ok', storage: 'ok', engine: 'ok' } });

  const audio = await readFile(await speechWav(3));
  const job = await createJob(api.url, api.key, jobBody(audio, { language: 'en' }));
  t.equal((await uploadFile(job, audio)).status, 204);
  // The long poll starts before the job is handed over, on the api, and ends when the worker finishes.
  const waited = poll(job.poll_url, api.key, '?wait=30');
  t.equal((await completeJob(job, api.key)).status, 202);
  let body = (await waited).body;
  for (let i = 0; i < 10 && body.status !== 'succeeded' && body.status !== 'failed'; i++) body = (await poll(job.poll_url, api.key, '?wait=30')).body;
  t.equal(body.status, 'succeeded');
  t.match((await db.query('SELECT status, lease_owner FROM jobs WHERE id = $1', [job.id])).rows[0], { status: 'succeeded', lease_owner: null });

  const workerMetrics = await (await fetch(`${worker.url}/metrics`)).text();
  t.match(workerMetrics, /svc_stt_jobs_finished_total\{outcome="succeeded",role="worker"\} 1/);
  t.match(workerMetrics, /svc_stt_job_processing_seconds_per_audio_second_count\{(?=[^}]*model="svc-medical-1")(?=[^}]*role="worker")[^}]*\} 1\n/);
  t.match(workerMetrics, /svc_stt_jobs\{state="succeeded",role="worker"\} 1/);
  const apiMetrics = await (await fetch(`${api.url}/metrics`)).text();
  t.match(apiMetrics, /svc_stt_jobs\{state="succeeded",role="api"\} 1/, 'every process sees the shared queue');
  t.match(apiMetrics, /svc_stt_http_requests_total\{route="\/v1\/jobs\/:job_id\/complete",method="POST",status="202",role="api"\} 1/);

  t.test('the database stops: not ready, 503 and nothing stored; it returns: ready again', async (t) => {
    const jobsBefore = (await db.query('SELECT count(*)::int AS n FROM jobs')).rows[0].n;
    await server.stop();
    try {
      for (const svc of [api, worker]) {
        const ready = await fetch(`${svc.url}/readyz`);
        t.equal(ready.status, 503);
        t.match(await ready.json(), { status: 'not_ready', checks: { database: 'unavailable', storage: 'ok', engine: 'ok' } });
        t.equal((await fetch(`${svc.url}/healthz`)).status, 200, 'alive all the same');
      }
      const refused = await createJobRequest(api.url, api.key, jobBody(audio, { language: 'en' }));
      t.equal(refused.status, 503);
      t.ok(Number(refused.headers.get('retry-after')) > 0);
      t.match(await refused.json(), { error: { code: 'service_unavailable' } });
      // Job counts are read at most every 5 s: the next read after that finds the database away.
      let metrics = '';
      for (let i = 0; i < 40 && !/svc_stt_store_up\{role="api"\} 0/.test(metrics); i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 250));
        metrics = await (await fetch(`${api.url}/metrics`)).text();
      }
      t.match(metrics, /svc_stt_store_up\{role="api"\} 0/);
    } finally {
      await server.start();
    }
    for (const svc of [api, worker]) {
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await fetch(`${svc.url}/readyz`)).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      t.equal(status, 200, 'ready again');
    }
    t.equal((await db.query('SELECT count(*)::int AS n FROM jobs')).rows[0].n, jobsBefore, 'the refused request stored nothing');
    t.equal((await createJobRequest(api.url, api.key, jobBody(audio, { language: 'en' }))).status, 201, 'and requests are served again');
  });
});
