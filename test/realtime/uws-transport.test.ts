// uWebSockets.js serving realtime (issue 50). Its binaries need glibc 2.38; where the test process's
// own glibc is older (Debian 12), the uWS variants of the realtime tests cannot run in it and are
// skipped there. This file runs them instead, on a Node.js that runs on Debian 13's glibc
// (test/helpers/newer-glibc-node.ts), with SVC_TEST_UWS_REQUIRED so that a uWS that fails to load
// fails them rather than skipping; and starts `serve` on that Node.js to see the realtime listener
// choose uWS by itself and carry a session. Where uWS loads in this process, the other files have
// already run its variants, and `serve` is started on this process's own Node.js.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t from 'tap';

import { uwsUnavailableReason } from '../../src/realtime/transport/uws-transport.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { glibcVersion, newerGlibcNode } from '../helpers/newer-glibc-node.js';
import { connectRealtime, startMessage, wavPcm } from '../helpers/realtime-client.js';
import { firstKey, kill, serve, serveEnv } from '../helpers/serve-process.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** The realtime test files with a uWS variant, each a top-level subtest named `transport uws...`. */
const UWS_FILES = ['realtime-protocol', 'realtime-limits', 'realtime-client-secret'].map((f) => join('test', 'realtime', `${f}.test.ts`));
const loadsHere = uwsUnavailableReason() === null;

const nodeForUws = async (): Promise<string> => (loadsHere ? process.execPath : newerGlibcNode());

t.test(
  'the realtime tests of the uWS transport pass on a glibc that loads it',
  { skip: loadsHere && 'uWS loads here: the files ran its variants' },
  async (t) => {
    const node = await newerGlibcNode();
    const tap = join(ROOT, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs');
    const child = spawn(node, [tap, '--grep=^transport uws', ...UWS_FILES], {
      cwd: ROOT,
      // A tap run of its own, not a subtest of this one (tap's TAP_* variables would make it one).
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^TAP(_|$)/.test(name))), SVC_TEST_UWS_REQUIRED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const summary = /#\s*\{\s*total:\s*(\d+)(?:,\s*pass:\s*(\d+))?(?:,\s*fail:\s*(\d+))?/.exec(output.slice(-4096));
    t.equal(code, 0, `tap on Debian 13's glibc passed${code === 0 ? '' : `:\n${output.slice(-3000)}`}`);
    t.ok(Number(summary?.[2] ?? 0) > 0, `its tests passed (${summary?.[0] ?? 'no summary'})`);
    t.notMatch(output, /uWebSockets\.js needs glibc|SVC_TEST_UWS_REQUIRED/, 'uWS loaded there');
    t.match(output, /# Subtest: transport uws/, 'the uWS variants ran');
  },
);

t.test('serve on a glibc that loads uWS serves realtime with it, unasked, and carries a session', async (t) => {
  const node = await nodeForUws();
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-uws-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const server = await serve(await serveEnv(dataDir, { SVC_LOG_LEVEL: 'info' }), [], node);
  t.teardown(() => kill(server));
  t.match(server.stdout(), /realtime listening ws:\/\/[^ ]+ \(transport uws;/, 'the listener says transport uws');
  t.notMatch(server.stdout(), /realtime served by ws/, 'and no fallback note');
  const client = await connectRealtime(server.realtimeUrl!);
  client.start(startMessage(await firstKey(dataDir)));
  await client.next('ready');
  await client.stream(wavPcm(await readFile(await speechWav(3))), { pace: 8 });
  client.stop();
  t.same(await client.closed, { code: 1000, reason: 'FINAL' }, 'the session ended normally over uWS');
});

t.test('where this process cannot load uWS, serve on it falls back to ws and says why in one sentence', { skip: loadsHere && 'uWS loads here' }, async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-ws-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const server = await serve(await serveEnv(dataDir, { SVC_LOG_LEVEL: 'info' }));
  t.teardown(() => kill(server));
  t.match(server.stdout(), /\(transport ws;/);
  t.match(server.stdout(), `realtime served by ws: uWebSockets.js needs glibc 2.38 or newer (Debian 13, Ubuntu 24.04) and this system has ${glibcVersion()}`);
});
