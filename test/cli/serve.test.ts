// `svc-stt serve` as users run it: a child process with embedded defaults in a fresh data folder.
// It hands the first key over in a 0600 file (shown on the screen only on a terminal), prints the
// ready record, serves with that key and with one made by `svc-stt keys create --json`, and exits
// cleanly on SIGTERM.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import t from 'tap';

import { FIRST_KEY_FILE } from '../../src/service/first-key-file.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { CLI_ARGS, firstKey as readServerKey, kill, readyRecord, serve, serveEnv } from '../helpers/serve-process.js';
import { testModelPath } from '../helpers/test-models.js';
import { postTranscription } from '../helpers/test-service.js';

const exec = promisify(execFile);

t.test('serve: first key, ready record, requests, keys create, SIGTERM', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-serve-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const env = {
    ...process.env,
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_REALTIME_PORT: '0',
    SVC_MODEL: await testModelPath('micro'),
    SVC_MAX_TOKENS: '8',
    SVC_LOG_LEVEL: 'warn',
  };
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      stdout += c;
      const ready = readyRecord(stdout);
      if (ready) resolve(ready.url);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  // The first key goes to a 0600 file in the data folder; output that is not a terminal is a log.
  const keyFile = join(dataDir, FIRST_KEY_FILE);
  const firstKey = await readServerKey(dataDir);
  t.match(firstKey, /^svc_[A-Za-z0-9]+_[A-Za-z0-9_-]+$/, 'the first key is in the file');
  t.equal((await stat(keyFile)).mode & 0o777, 0o600, 'readable by its owner only');
  t.ok(stderr.includes(keyFile), 'the banner names the file');
  t.match(stderr, /curl /, 'with a ready-to-run curl');
  t.notOk(stderr.includes(firstKey), 'the key itself is not printed when stdout is not a terminal');

  const audio = { data: await readFile(await speechWav(3)), name: 'a.wav' };
  const res = await postTranscription(url, firstKey, { model: 'svc-medical-1', response_format: 'json' }, audio);
  t.equal(res.status, 200);
  t.type(((await res.json()) as any).text, 'string');

  const { stdout: created } = await exec(process.execPath, [...CLI_ARGS, 'keys', 'create', '--json', '--tenant', 'clinic-7'], { env });
  const made = JSON.parse(created);
  t.same(Object.keys(made).sort(), ['id', 'key', 'tenant']);
  t.equal(made.tenant, 'clinic-7');
  const res2 = await postTranscription(url, made.key, { model: 'svc-medical-1', response_format: 'text' }, audio);
  t.equal(res2.status, 200, 'a key created by the CLI works against the running server');
  await res2.body?.cancel();

  child.kill('SIGTERM');
  t.equal(await exited, 0, 'clean exit on SIGTERM');
  t.notOk(stdout.includes(firstKey), 'the key is not on stdout either');

  // A second start on the same data folder creates no new key.
  const again = spawn(process.execPath, [...CLI_ARGS, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err2 = '';
  again.stderr.on('data', (c) => (err2 += c));
  await new Promise<void>((resolve) => again.stdout.on('data', (c) => /"msg":"listening"/.test(String(c)) && resolve()));
  again.kill('SIGTERM');
  await new Promise((r) => again.on('exit', r));
  t.notMatch(err2, /svc_[A-Za-z0-9]+_|first API key/, 'no key and no banner on later starts');
  t.equal(await readServerKey(dataDir), firstKey, 'the file still holds the first key');
});

t.test('stdout is the JSON log: every line a record, the ready one included', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-serve-json-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  // At info, so that the service's own start records are on stdout too.
  const server = await serve(await serveEnv(dataDir, { SVC_LOG_LEVEL: 'info' }));
  t.teardown(() => kill(server));
  t.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.match(server.realtimeUrl, /^ws:\/\/127\.0\.0\.1:\d+$/);
  server.child.kill('SIGTERM');
  await server.exited;
  const lines = server
    .stdout()
    .split('\n')
    .filter((line) => line !== '');
  t.ok(lines.length > 1, 'the start is logged');
  const notJson = lines.filter((line) => {
    try {
      return typeof JSON.parse(line) !== 'object';
    } catch {
      return true;
    }
  });
  t.same(notJson, [], 'no plain line among the records');
  const records = notJson.length === 0 ? lines.map((line) => JSON.parse(line) as { msg?: string }) : [];
  t.match(
    records.find((record) => record.msg === 'listening'),
    { url: server.url, realtimeUrl: server.realtimeUrl },
    'the ready record',
  );
});

t.test('on an interactive terminal the first key is shown too', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-serve-tty-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const env = await serveEnv(dataDir);
  // script(1) runs the server with a pseudo-terminal as its stdout, as a person at a shell would.
  const command = [process.execPath, ...CLI_ARGS, 'serve'].map((arg) => `'${arg}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => child.kill('SIGKILL'));
  let terminal = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      terminal += c;
      if (/"msg":"listening"/.test(terminal)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${terminal}`)));
  });
  const key = await readServerKey(dataDir);
  t.ok(terminal.includes(key), 'the key is shown on the terminal');
  t.ok(terminal.includes(join(dataDir, FIRST_KEY_FILE)), 'and the file is named');
});

t.test('serve with a bad configuration says what is wrong and exits non-zero', async (t) => {
  const env = { ...process.env, SVC_MODEL: '/nonexistent/model.bin', SVC_PORT: 'eighty', SVC_DATA_DIR: join(tmpdir(), 'svc-bad-config') };
  const result = await exec(process.execPath, [...CLI_ARGS, 'serve'], { env }).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => e,
  );
  t.not(result.code, 0);
  t.match(result.stderr, /SVC_MODEL/);
  t.match(result.stderr, /SVC_PORT/);
});
