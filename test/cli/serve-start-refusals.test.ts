// What a newcomer's broken start says, through a real `svc-stt serve` process: without ffmpeg on
// PATH it refuses to start, naming the missing tool and how to install it (instead of answering
// every compressed upload and job 500 later); a port another process holds stops the start with the
// listener's name, its address and the variable that moves it (instead of a bare EADDRINUSE).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import t, { type Test } from 'tap';

import { CLI_ARGS, serveEnv } from '../helpers/serve-process.js';

const exec = promisify(execFile);

async function baseEnv(t: Test, extra: Record<string, string> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-start-refusal-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  return serveEnv(dataDir, extra);
}

/** Runs `serve` expecting it to refuse and exit by itself: its exit code and what it printed. */
async function refusedStart(t: Test, env: NodeJS.ProcessEnv) {
  try {
    await exec(process.execPath, [...CLI_ARGS, 'serve'], { env, timeout: 90_000 });
    t.fail('serve exited 0');
    return { code: 0, output: '' };
  } catch (error) {
    const e = error as { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };
    t.equal(e.signal, null, 'exited by itself (not killed at the time limit)');
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

/** A folder for PATH holding only `tools` (links to the real ones). */
async function pathWith(t: Test, tools: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-path-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const tool of tools) await symlink(`/usr/bin/${tool}`, join(dir, tool));
  return dir;
}

t.test('without ffmpeg on PATH the start is refused, naming it and how to install it', async (t) => {
  const { code, output } = await refusedStart(t, { ...(await baseEnv(t)), PATH: await pathWith(t, ['ffprobe']) });
  t.equal(code, 1);
  t.match(output, /svc-stt: ffmpeg is not on PATH, and svc-stt needs it to read audio: install ffmpeg .*`apt-get install ffmpeg`/);
  t.notMatch(output, /ffprobe is not/, 'ffprobe is there');
  t.notMatch(output, /"msg":"listening"/);
});

t.test('with neither tool on PATH both are named', async (t) => {
  const { code, output } = await refusedStart(t, { ...(await baseEnv(t)), PATH: await pathWith(t, []) });
  t.equal(code, 1);
  t.match(output, /svc-stt: ffmpeg and ffprobe are not on PATH, and svc-stt needs them/);
});

/** A port on 127.0.0.1 held by this test until it ends. */
async function heldPort(t: Test): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as { port: number }).port;
}

for (const [listener, variable] of [
  ['console', 'SVC_CONSOLE_PORT'],
  ['realtime', 'SVC_REALTIME_PORT'],
  ['API', 'SVC_PORT'],
] as const) {
  t.test(`a taken ${listener} port stops the start naming the listener, the address and ${variable}`, async (t) => {
    const port = await heldPort(t);
    const { code, output } = await refusedStart(t, await baseEnv(t, { [variable]: String(port) }));
    t.equal(code, 1);
    t.match(
      output,
      `svc-stt: the ${listener} listener cannot listen on 127.0.0.1:${port}: ` +
        `the address is in use (another svc-stt or another program listens there); set ${variable} to a free port`,
    );
    t.notMatch(output, /"msg":"listening"/);
  });
}
