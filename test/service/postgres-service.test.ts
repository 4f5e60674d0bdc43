// The service on PostgreSQL (SVC_DATABASE_URL) end to end: the first key is created in the database,
// a presigned job runs to `succeeded` with its row in PostgreSQL, a second start on the same database
// creates no second key and sees the job, and each start registers (then removes) its instance.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { openPostgres } from '../../src/store/postgres/database.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { completeJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { sharedPostgres } from '../helpers/postgres-server.js';
import { startTestService } from '../helpers/test-service.js';

t.test('a job on PostgreSQL: stored there, processed, visible to the next start; instances come and go', async (t) => {
  const url = await (await sharedPostgres()).createDatabase();
  const db = await openPostgres(url);
  t.teardown(() => db.close());
  const audio = await readFile(await speechWav(3));

  // Processes on one database share its master key (docs/OPERATIONS.md): what one sealed, the next opens.
  const masterKey = randomBytes(32).toString('base64');
  const first = await startTestService({ SVC_DATABASE_URL: url, SVC_WEBHOOK_MASTER_KEY: masterKey });
  t.teardown(() => first.close());
  t.ok(first.service.firstKey, 'a fresh database gets its first key');
  t.equal((await db.query('SELECT count(*)::int AS n FROM api_keys')).rows[0].n, 1, 'in PostgreSQL');
  t.equal((await db.query('SELECT count(*)::int AS n FROM service_instances')).rows[0].n, 1, 'this process is registered');

  const job = await createJob(first.url, first.key, jobBody(audio, { language: 'en' }));
  t.equal((await uploadFile(job, audio)).status, 204);
  t.equal((await completeJob(job, first.key)).status, 202);
  const done = await waitForEnd(job.poll_url, first.key);
  t.equal(done.status, 'succeeded');
  t.match((await db.query('SELECT status, audio_path, upload_owner FROM jobs WHERE id = $1', [job.id])).rows[0], { status: 'succeeded', audio_path: null });
  await first.close();
  t.equal((await db.query('SELECT count(*)::int AS n FROM service_instances')).rows[0].n, 0, 'a clean stop deregisters');

  const second = await startTestService({ SVC_DATABASE_URL: url, SVC_WEBHOOK_MASTER_KEY: masterKey });
  t.teardown(() => second.close());
  t.equal(second.service.firstKey, null, 'no second first key');
  t.match(await poll(job.poll_url.replace(first.url, second.url), first.key), { status: 200, body: { id: job.id, status: 'succeeded' } });
});
