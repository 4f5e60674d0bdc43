// Issue 14, defect 3, with real sockets against `svc-stt serve` in its own process (so its memory is
// measured alone): clients that pipeline requests and never read the answers. 8 such sockets on
// GET /v1/openapi.json (no key needed) used to make the server hold ~60 MB of answers, for ever.
// Now each connection is bounded by the unread-output guard (src/api/unread-output-guard.ts): too
// many requests in progress, too many unread bytes, or unread output that makes no progress for the
// timeout closes it; public routes have the tightest limits.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t, { type Test } from 'tap';

import { DEFAULTS } from '../../src/config/service-config.js';
import { firstKey, kill, serve, serveEnv, type ServeProcess } from '../helpers/serve-process.js';

const OPENAPI_REQUEST = 'GET /v1/openapi.json HTTP/1.1\r\nHost: test\r\n\r\n';

function rssBytes(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

async function startServer(t: Test, extra: Record<string, string> = {}): Promise<ServeProcess & { dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-slow-readers-'));
  const server = await serve(await serveEnv(dataDir, extra));
  t.teardown(async () => {
    await kill(server);
    await rm(dataDir, { recursive: true, force: true });
  });
  // Warm up what the first requests load lazily, so the baseline is the server at rest.
  for (let i = 0; i < 5; i++) await (await fetch(`${server.url}/v1/openapi.json`)).text();
  await new Promise((r) => setTimeout(r, 500));
  return { ...server, dataDir };
}

/** A socket that writes `requests` in one go and never reads (its receive buffer fills, then the server's send buffer). */
function neverReading(url: string, requests: string): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.pause();
  socket.on('error', () => {});
  socket.write(requests);
  return socket;
}

/**
 * Whether the server has closed `socket`: a client that does not read cannot see the close, so this
 * starts reading (discarding) and waits for the end of the stream. A connection the server kept open
 * would go on delivering its queued answers and never end. Resolves with the bytes that were waiting.
 * The wait is long since only a failure waits it out: a loaded box may take seconds to close.
 */
function closedByServer(socket: Socket, waitMs = 20_000): Promise<number | null> {
  return new Promise((resolve) => {
    let bytes = 0;
    const timer = setTimeout(() => resolve(null), waitMs).unref();
    socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
    const ended = () => {
      clearTimeout(timer);
      resolve(bytes);
    };
    socket.once('end', ended);
    socket.once('close', ended);
    socket.resume();
  });
}

t.test('8 never-reading sockets pipelining 2,000 GETs each, 5 times over: closed, memory bounded', async (t) => {
  // The server runs with its V8 heap capped at 128 MiB: answers held for never-reading clients
  // (~60 MiB per round of 8 sockets before the fix) would exhaust it within two rounds and crash the
  // process; bounded memory survives every round. RSS is sampled throughout as well.
  const server = await startServer(t, { NODE_OPTIONS: [process.env.NODE_OPTIONS, '--max-old-space-size=128'].filter(Boolean).join(' ') });
  const pid = server.child.pid!;
  const baseline = rssBytes(pid);
  let peak = baseline;
  const sampler = setInterval(() => {
    if (server.child.exitCode === null) peak = Math.max(peak, rssBytes(pid));
  }, 20);
  t.teardown(() => clearInterval(sampler));
  const sockets: Socket[] = [];
  for (let round = 0; round < 5; round++) {
    // Kept open (and unread) to the end: a server that held their answers would hold them all.
    for (let i = 0; i < 8; i++) sockets.push(neverReading(server.url, OPENAPI_REQUEST.repeat(2000)));
    await new Promise((r) => setTimeout(r, 1000));
    t.equal(server.child.exitCode, null, `the server is alive after round ${round + 1}`);
  }
  clearInterval(sampler);
  const growth = peak - baseline;
  // Peak RSS counts garbage not yet collected, which grows when other tests load the machine (36-47 MiB
  // alone, 82 MiB once beside another file); unbounded, the 40 sockets would hold about 300 MiB.
  t.ok(growth < 128 * 1024 * 1024, `RSS grew at most ${(growth / 1048576).toFixed(1)} MiB over 40 sockets (bound 128 MiB)`);
  const waiting = await Promise.all(sockets.map((socket) => closedByServer(socket)));
  t.ok(
    waiting.every((bytes) => bytes !== null),
    'every socket had been closed by the server',
  );
  const mostWaiting = Math.max(...waiting.map((bytes) => bytes ?? Infinity));
  const res = await fetch(`${server.url}/v1/openapi.json`);
  t.equal(res.status, 200, 'the server still answers a well-behaved client');
  // One answer is the document and its headers (under 1 KiB); the document grows with the API.
  const answerBytes = (await res.arrayBuffer()).byteLength + 1024;
  const bound = DEFAULTS.connections.public.maxPipelinedRequests * answerBytes;
  t.ok(mostWaiting <= bound, `at most ${mostWaiting} bytes of answers were sent to any of them (bound ${bound})`);
});

t.test('the unread-bytes limit and the no-progress timeout, each alone', async (t) => {
  // Pipelining allowed deep enough that the byte limit (first server) or the timeout (second) acts.
  const bytes = await startServer(t, {
    SVC_PUBLIC_MAX_PIPELINED_REQUESTS: '1000',
    SVC_PUBLIC_MAX_UNREAD_BYTES: '100000',
    SVC_PUBLIC_UNREAD_TIMEOUT_MS: '60000',
  });
  const overBytes = neverReading(bytes.url, OPENAPI_REQUEST.repeat(400));
  await new Promise((r) => setTimeout(r, 1000));
  const sentOverBytes = await closedByServer(overBytes);
  t.ok(sentOverBytes !== null, 'over 100,000 unread bytes: closed within a second, long before the 60 s timeout');
  t.ok((sentOverBytes ?? Infinity) < 200_000, `${sentOverBytes} bytes of answers were sent`);

  const stall = await startServer(t, {
    SVC_PUBLIC_MAX_PIPELINED_REQUESTS: '1000',
    SVC_PUBLIC_MAX_UNREAD_BYTES: '1000000000',
    SVC_PUBLIC_UNREAD_TIMEOUT_MS: '1500',
  });
  // ~9 MB of answers: more than the kernel's socket buffers take, so output waits in the server.
  const stalled = neverReading(stall.url, OPENAPI_REQUEST.repeat(300));
  const reader = await fetch(`${stall.url}/v1/openapi.json`);
  t.equal(reader.status, 200, 'a reading client on the same server is served meanwhile');
  await reader.body?.cancel();
  await new Promise((r) => setTimeout(r, 1500 + 2000));
  const sentStalled = await closedByServer(stalled);
  t.ok(sentStalled !== null, 'no byte taken for 1.5 s: closed by the server');
  t.ok((sentStalled ?? Infinity) < 300 * 30_000, `only what the kernel had taken (${sentStalled} bytes) was delivered`);
});

t.test('a slow reader that keeps reading is not cut off by the timeout', async (t) => {
  const server = await startServer(t, {
    SVC_PUBLIC_MAX_PIPELINED_REQUESTS: '1000',
    SVC_PUBLIC_MAX_UNREAD_BYTES: '1000000000',
    SVC_PUBLIC_UNREAD_TIMEOUT_MS: '1500',
  });
  const socket = neverReading(server.url, OPENAPI_REQUEST.repeat(300));
  let closed = false;
  socket.on('close', () => (closed = true));
  let received = 0;
  // Reads in small sips for 4 s (longer than the timeout), so output keeps draining slowly.
  const sip = setInterval(() => {
    for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) received += chunk.length;
  }, 250);
  await new Promise((r) => setTimeout(r, 4000));
  clearInterval(sip);
  t.notOk(closed, `still open after 4 s of slow reading (${received} bytes read)`);
  t.ok(received > 0);
  socket.destroy();
});

t.test('authenticated routes allow deeper pipelining than public ones', async (t) => {
  const server = await startServer(t);
  const key = await firstKey(server.dataDir);
  const depth = DEFAULTS.connections.authenticated.maxPipelinedRequests;
  t.ok(depth > DEFAULTS.connections.public.maxPipelinedRequests, 'the public limit is the tighter one');
  const answersTo = (request: string, count: number) =>
    new Promise<number>((resolve) => {
      const { hostname, port } = new URL(server.url);
      const socket = connect(Number(port), hostname);
      let text = '';
      socket.on('data', (c) => (text += c.toString('latin1')));
      socket.on('error', () => {});
      const answers = () => (text.match(/HTTP\/1\.1 \d{3} /g) ?? []).length;
      // Ends once every answer came (a loaded box may take seconds), or after 20 s whatever came.
      socket.on('data', () => {
        if (answers() >= count) socket.end();
      });
      socket.on('close', () => resolve(answers()));
      socket.write(request.repeat(count));
      setTimeout(() => socket.end(), 20_000).unref();
    });
  const poll = `GET /v1/jobs/job_0123456789abcdefghijkl HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`;
  t.equal(await answersTo(poll, depth), depth, `${depth} pipelined authenticated requests are all answered`);
  const publicAnswers = await answersTo(OPENAPI_REQUEST, depth);
  t.ok(publicAnswers <= DEFAULTS.connections.public.maxPipelinedRequests, `the same depth on a public route: closed after ${publicAnswers} answers`);
});
