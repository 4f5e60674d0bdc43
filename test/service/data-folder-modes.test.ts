// Issue 43 item 4: recordings, transcripts, voice profiles and secrets in the data folder are the
// service owner's alone. After real work (a job's upload, audio and result, an inline transcription,
// a voice enrolment) every file under the folder is 0600 and every folder 0700, under the usual umask
// 022 and under a permissive 000; and a start on a folder holding anything wider logs one warning.
import { chmod, lstat, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import t from 'tap';

import { DATA_FOLDER_WARNING } from '../../src/service/data-folder-modes.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, jobBody, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { captureLogs } from '../helpers/test-logs.js';
import { startTestService } from '../helpers/test-service.js';

/** Every entry under `dir` (the folder itself included) with its permission bits, by path relative to `dir`. */
async function modesUnder(dir: string): Promise<Map<string, { mode: number; folder: boolean }>> {
  const found = new Map<string, { mode: number; folder: boolean }>();
  const visit = async (path: string) => {
    const stats = await lstat(path);
    found.set(relative(dir, path) || '.', { mode: stats.mode & 0o777, folder: stats.isDirectory() });
    if (stats.isDirectory()) for (const name of await readdir(path)) await visit(join(path, name));
  };
  await visit(dir);
  return found;
}

const octal = (mode: number) => `0${mode.toString(8).padStart(3, '0')}`;

async function enrol(url: string, key: string, audio: Uint8Array): Promise<number> {
  const form = new FormData();
  form.append('name', 'Dr Modes');
  form.append('file', new Blob([audio as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'enrolment.wav');
  return (await fetch(`${url}/v1/voices`, { method: 'POST', body: form, headers: auth(key) })).status;
}

async function transcribeInline(url: string, key: string, audio: Uint8Array): Promise<number> {
  const form = new FormData();
  form.append('model', 'svc-medical-1');
  form.append('file', new Blob([audio as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'visit.wav');
  return (await fetch(`${url}/v1/audio/transcriptions`, { method: 'POST', body: form, headers: auth(key) })).status;
}

for (const umask of [0o022, 0o000]) {
  t.test(`umask ${octal(umask)}: after real work, every file is 0600 and every folder 0700`, async (t) => {
    const speech = await readFile(await speechWav(6));
    const previous = process.umask(umask);
    t.teardown(() => void process.umask(previous));
    // A folder the service creates itself, not the test's mkdtemp (which is 0700 already).
    const dataDir = join(await mkdtemp(join(tmpdir(), 'svc-modes-')), 'data');
    const logs = captureLogs();
    const svc = await startTestService({ SVC_DATA_DIR: dataDir }, { logger: { level: 'info', stream: logs.stream } });
    t.teardown(() => svc.close());

    const job = await createJob(svc.url, svc.key, jobBody(speech));
    t.equal((await uploadFile(job, speech)).status, 204, 'uploaded');
    // The job's audio is kept until the job ends: judged now, with the rest at the end.
    const modes = await modesUnder(dataDir);
    t.equal((await completeJob(job, svc.key)).status, 202, 'completed');
    t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded', 'the job ran');
    t.equal(await transcribeInline(svc.url, svc.key, speech), 200, 'an inline transcription');
    t.equal(await enrol(svc.url, svc.key, speech), 201, 'a voice enrolled');

    for (const [name, entry] of await modesUnder(dataDir)) modes.set(name, entry);
    const names = [...modes.keys()];
    // What the service writes is there to be judged: the test cannot pass on an empty folder.
    for (const expected of [
      /^svc-stt\.db$/,
      /^svc-stt\.db-wal$/,
      /^svc-stt\.db-shm$/,
      /^first-api-key$/,
      /^blobs\/jobs\/.+\.audio$/,
      /^blobs\/results\/.+\.result$/,
      /^blobs\/uploads$/,
    ]) {
      t.ok(
        names.some((name) => expected.test(name)),
        `${expected.source} is there`,
      );
    }
    const wider = [...modes].filter(([, { mode, folder }]) => mode !== (folder ? 0o700 : 0o600)).map(([name, { mode }]) => `${name} ${octal(mode)}`);
    t.same(wider, [], `${modes.size} entries, each 0600 or 0700`);
    t.notOk(
      logs.lines().some((line) => line.msg === DATA_FOLDER_WARNING),
      'no warning on a folder the service made',
    );
  });
}

t.test('a start on a folder holding wider modes warns once, with a count and the widest mode, and serves', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-modes-'));
  await chmod(dataDir, 0o755);
  // A database left by an older version: SQLite gives its -wal and -shm the database file's mode.
  await writeFile(join(dataDir, 'svc-stt.db'), '');
  await chmod(join(dataDir, 'svc-stt.db'), 0o644);
  const logs = captureLogs();
  const svc = await startTestService({ SVC_DATA_DIR: dataDir }, { logger: { level: 'info', stream: logs.stream } });
  t.teardown(() => svc.close());
  const warnings = logs.lines().filter((line) => line.msg === DATA_FOLDER_WARNING);
  t.equal(warnings.length, 1, 'one line');
  t.match(warnings[0], { level: 40, dataDir, widerThanPrivate: 4, widest: '.', widestMode: '0755' });
  t.equal((await fetch(`${svc.url}/healthz`)).status, 200, 'the service started all the same');
});
