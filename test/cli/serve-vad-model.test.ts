// The VAD model at start: a missing or corrupt file stops `svc-stt serve` before it listens, with a
// message naming the file and the way out; SVC_VAD=false (the operator's explicit choice) runs
// without one. Never a crash in the middle of a request.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import t, { type Test } from 'tap';

import { CLI_ARGS, serve, serveEnv } from '../helpers/serve-process.js';

const exec = promisify(execFile);

async function baseEnv(t: Test) {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-vad-start-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  return { ...(await serveEnv(dataDir)), SVC_DATA_DIR: dataDir };
}

/** Runs `serve` expecting it to refuse: its exit code and what it printed. */
async function refusedStart(env: NodeJS.ProcessEnv) {
  try {
    await exec(process.execPath, [...CLI_ARGS, 'serve'], { env, timeout: 60_000 });
    return { code: 0, output: '' };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

t.test('a missing VAD model refuses the start and says how to get one', async (t) => {
  const env = { ...(await baseEnv(t)), SVC_VAD_MODEL: join(tmpdir(), 'no-such-vad-model.bin') };
  const { code, output } = await refusedStart(env);
  t.not(code, 0, 'exits with an error');
  t.match(output, /SVC_VAD_MODEL names a VAD model that does not exist/);
  t.match(output, /SVC_VAD=false/, 'names the opt-out');
  t.notMatch(output, /listening/);
});

t.test('a corrupt VAD model refuses the start before it listens', async (t) => {
  const env = await baseEnv(t);
  const corrupt = join(env.SVC_DATA_DIR, 'corrupt-vad.bin');
  await writeFile(corrupt, Buffer.alloc(4096, 7));
  const { code, output } = await refusedStart({ ...env, SVC_VAD_MODEL: corrupt });
  t.not(code, 0, 'exits with an error');
  t.match(output, /cannot load VAD model/);
  t.ok(output.includes(corrupt), 'names the file');
  t.notMatch(output, /listening/);
});

t.test('SVC_VAD=false runs without a VAD model', async (t) => {
  const env = { ...(await baseEnv(t)), SVC_VAD: 'false', SVC_VAD_MODEL: join(tmpdir(), 'no-such-vad-model.bin') };
  const server = await serve(env);
  t.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'listening');
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0, 'clean exit');
});
