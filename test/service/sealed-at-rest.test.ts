// Issue 48's proof, the database's part: a phrase planted in a job's request (its prompt) and a term
// planted in its key's dictionary are in no database file once the real service has run the job,
// WAL included (SQLite), and in no line of a pg_dump of its database (PostgreSQL,
// test/scale-out/sealed-at-rest.pg-s3.test.ts), and the job and the dictionary still read back
// opened. Blobs (the data folder, the bucket): sealed-blobs-at-rest.test.ts.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import t, { type Test } from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { completeJob, createJob, jobBody, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { BIN_DIR } from '../helpers/postgres-server.js';
import { startTestService, testStorePair } from '../helpers/test-service.js';

const PHRASE = 'Quillfeather zebrafish 4417 metoprolol';
/** A dictionary term: clinical vocabulary, perhaps a name. */
const TERM = 'Oyelaran-Thistlewood';

/** A service, and a job of it with the phrase as its prompt, run to its end. */
async function promptedJob(t: Test) {
  const svc = await startTestService({ SVC_JOB_CHUNK_SECONDS: '5' });
  t.teardown(() => svc.close());
  const keyId = (await svc.stores.keys.list())[0]!.id;
  await svc.stores.keys.setDictionary(keyId, 'en', [TERM, 'warfarin']);
  t.same(await svc.stores.keys.getDictionary(keyId, 'en'), [TERM, 'warfarin'], 'the store opens the sealed dictionary');
  const speech = await readFile(await speechWav(12));
  const job = await createJob(svc.url, svc.key, jobBody(speech, { prompt: PHRASE }));
  t.equal((await uploadFile(job, speech)).status, 204);
  t.equal((await completeJob(job, svc.key)).status, 202);
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
  return { svc, job };
}

t.test(
  'a job prompt is sealed in the database files, WAL included, and still read back',
  { skip: testStorePair() === 'postgres+s3' && 'SQLite files only here' },
  async (t) => {
    const { svc, job } = await promptedJob(t);

    const stored = await svc.stores.jobs.get(job.id, (await svc.stores.keys.list())[0]!.tenant);
    t.equal(stored?.request.prompt, PHRASE, 'the store opens the sealed request');

    const files = (await readdir(svc.dataDir)).filter((name) => name.startsWith('svc-stt.db'));
    t.ok(files.includes('svc-stt.db-wal'), 'the WAL is scanned too');
    for (const name of files) {
      const bytes = await readFile(join(svc.dataDir, name));
      t.notOk(bytes.includes(PHRASE), `${name} does not hold the phrase`);
      t.notOk(bytes.includes(Buffer.from(PHRASE, 'utf16le')), `${name} does not hold it in UTF-16`);
      t.notOk(bytes.includes(TERM), `${name} does not hold the dictionary term`);
    }
  },
);

t.test(
  "a job prompt is in no line of a pg_dump of the service's database, and still read back",
  { skip: testStorePair() !== 'postgres+s3' && 'PostgreSQL only here' },
  async (t) => {
    const { svc, job } = await promptedJob(t);
    const stored = await svc.stores.jobs.get(job.id, (await svc.stores.keys.list())[0]!.tenant);
    t.equal(stored?.request.prompt, PHRASE, 'the store opens the sealed request');

    const dump = await new Promise<string>((resolve, reject) =>
      execFile(join(BIN_DIR, 'pg_dump'), ['--data-only', `--dbname=${svc.config.database.url!}`], { maxBuffer: 256 * 1024 * 1024 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    t.match(dump, job.id, "the dump holds the job's row (its metadata stays plain)");
    t.notOk(dump.includes(PHRASE), 'the dump does not hold the phrase');
    t.notOk(dump.includes('Quillfeather'), 'nor any part of it');
    t.notOk(dump.includes(TERM), 'nor the dictionary term');
  },
);
