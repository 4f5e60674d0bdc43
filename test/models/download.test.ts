// Model download against a local HTTP server: verification, resume with Range, restart when the
// server ignores Range, and clear errors when offline. No real network is used.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { access, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t from 'tap';

import { downloadModel, type DownloadProgress, ModelDownloadError } from '../../src/models/download.js';
import type { ModelManifest } from '../../src/models/manifest.js';
import { mulberry32 } from '../../src/models/seeded-random.js';

const random = mulberry32(1234);
const content = Buffer.from(new Uint8Array(3 * 1024 * 1024 + 17).map(() => random() & 0xff));
const sha256 = createHash('sha256').update(content).digest('hex');
const sha1 = createHash('sha1').update(content).digest('hex');

type Mode = 'normal' | 'cut-first' | 'ignore-range' | 'wrong-bytes' | 'stall' | 'not-found';
let mode: Mode = 'normal';
let requests: Array<{ url: string; range?: string }> = [];

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  requests.push({ url: req.url ?? '', range: req.headers.range });
  if (mode === 'not-found' || !req.url?.startsWith('/ggml-fake')) {
    res.writeHead(404).end('not found');
    return;
  }
  const body = mode === 'wrong-bytes' ? Buffer.from(content).fill(7, 1000, 2000) : content;
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  if (range && mode !== 'ignore-range') {
    const start = Number(range[1]);
    res.writeHead(206, {
      'content-length': body.length - start,
      'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
    });
    res.end(body.subarray(start));
    return;
  }
  res.writeHead(200, { 'content-length': body.length });
  if (mode === 'cut-first' || mode === 'stall') {
    // Send part of the body; then drop the connection (once) or go silent.
    res.write(body.subarray(0, 1024 * 1024 + 5), () => {
      if (mode === 'cut-first') {
        mode = 'normal';
        res.socket?.destroy();
      }
    });
    return;
  }
  res.end(body);
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const port = (server.address() as AddressInfo).port;
t.teardown(() => {
  server.closeAllConnections();
  server.close();
});

function manifest(entry: Partial<ModelManifest['models'][number]> = {}): ModelManifest {
  return {
    models: [
      {
        name: 'fake',
        file: 'ggml-fake.bin',
        url: `http://127.0.0.1:${port}/ggml-fake.bin`,
        sizeBytes: content.length,
        sha256,
        arch: 'tiny',
        multilingual: true,
        quantization: 'f16',
        ...entry,
      },
    ],
  };
}

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-download-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  mode = 'normal';
  requests = [];
  return dir;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function downloadError(promise: Promise<unknown>): Promise<ModelDownloadError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ModelDownloadError)) throw new Error(`expected a ModelDownloadError, got ${String(error)}`);
  return error;
}

t.test('downloads, verifies SHA-256 and renames into place', async (t) => {
  const dir = await freshDir();
  const progress: DownloadProgress[] = [];
  const path = await downloadModel('fake', { dir, manifest: manifest(), onProgress: (p) => progress.push(p) });
  t.equal(path, join(dir, 'ggml-fake.bin'));
  t.ok((await readFile(path)).equals(content), 'the bytes served');
  t.same(await readdir(dir), ['ggml-fake.bin'], 'no .part left');
  t.equal(requests.length, 1);
  t.equal(requests[0].range, undefined, 'a fresh download sends no Range');
  t.equal(progress.at(-1)?.receivedBytes, content.length);
  t.ok(progress.every((p) => p.totalBytes === content.length));
  t.ok(
    progress.every((p, i) => i === 0 || p.receivedBytes >= progress[i - 1].receivedBytes),
    'monotonic progress',
  );

  requests = [];
  t.equal(await downloadModel('fake', { dir, manifest: manifest() }), path, 'an already verified file is kept');
  t.equal(requests.length, 0, 'without a request');
});

t.test('verifies with SHA-1 when that is the only published checksum', async (t) => {
  const dir = await freshDir();
  const path = await downloadModel('fake', { dir, manifest: manifest({ sha256: undefined, sha1 }) });
  t.ok((await readFile(path)).equals(content));
});

t.test('resumes an interrupted transfer with a Range request', async (t) => {
  const dir = await freshDir();
  mode = 'cut-first';
  const first = await downloadError(downloadModel('fake', { dir, manifest: manifest() }));
  t.equal(first.code, 'interrupted', first.message);
  t.match(first.message, /run the same download again to resume/);
  t.notOk(await exists(join(dir, 'ggml-fake.bin')), 'no final file after an interruption');
  const kept = (await readFile(join(dir, 'ggml-fake.bin.part'))).length;
  t.ok(kept > 0 && kept < content.length, `the .part keeps what arrived (${kept} bytes)`);

  const progress: DownloadProgress[] = [];
  const path = await downloadModel('fake', { dir, manifest: manifest(), onProgress: (p) => progress.push(p) });
  t.equal(requests.at(-1)?.range, `bytes=${kept}-`, 'the second request asks for the rest');
  t.equal(progress[0].receivedBytes, kept, 'progress starts from the bytes already on disk');
  t.ok((await readFile(path)).equals(content), 'the joined file is exact');
  t.same(await readdir(dir), ['ggml-fake.bin']);
});

t.test('starts over when the server ignores Range', async (t) => {
  const dir = await freshDir();
  await writeFile(join(dir, 'ggml-fake.bin.part'), Buffer.from('stale bytes from another attempt'));
  mode = 'ignore-range';
  const path = await downloadModel('fake', { dir, manifest: manifest() });
  t.match(requests[0].range, /^bytes=\d+-$/);
  t.ok((await readFile(path)).equals(content), 'the 200 body replaced the stale prefix');
});

t.test('a checksum mismatch is an error and leaves no file', async (t) => {
  const dir = await freshDir();
  mode = 'wrong-bytes';
  const error = await downloadError(downloadModel('fake', { dir, manifest: manifest() }));
  t.equal(error.code, 'checksum_mismatch');
  t.match(error.message, new RegExp(`expected ${sha256}`));
  t.same(await readdir(dir), [], 'neither the final file nor the .part remain');
});

t.test('a bad prefix from an earlier attempt fails verification and is discarded', async (t) => {
  const dir = await freshDir();
  await writeFile(join(dir, 'ggml-fake.bin.part'), Buffer.alloc(1000, 1));
  const error = await downloadError(downloadModel('fake', { dir, manifest: manifest() }));
  t.equal(error.code, 'checksum_mismatch');
  t.same(await readdir(dir), []);
  const path = await downloadModel('fake', { dir, manifest: manifest() });
  t.ok((await readFile(path)).equals(content), 'the next attempt starts clean');
});

t.test('connection refused is a clear offline error', async (t) => {
  const dir = await freshDir();
  const closed = createServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const deadPort = (closed.address() as AddressInfo).port;
  closed.close();
  await once(closed, 'close');
  const error = await downloadError(downloadModel('fake', { dir, manifest: manifest({ url: `http://127.0.0.1:${deadPort}/ggml-fake.bin` }) }));
  t.equal(error.code, 'unreachable');
  t.match(error.message, new RegExp(`cannot reach 127\\.0\\.0\\.1:${deadPort}: .*ECONNREFUSED`));
  t.match(error.message, /pass its path with SVC_MODEL/);
  t.same(await readdir(dir), []);
});

t.test('a DNS failure names the host and the way around it', async (t) => {
  const dir = await freshDir();
  const dnsFailure: typeof fetch = async () => {
    const cause = Object.assign(new Error('getaddrinfo ENOTFOUND huggingface.co'), { code: 'ENOTFOUND' });
    throw new TypeError('fetch failed', { cause });
  };
  const error = await downloadError(
    downloadModel('fake', {
      dir,
      manifest: manifest({ url: 'https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-fake.bin' }),
      fetchImpl: dnsFailure,
    }),
  );
  t.equal(error.code, 'unreachable');
  t.equal(error.message, 'cannot reach huggingface.co: getaddrinfo ENOTFOUND huggingface.co; download the file elsewhere and pass its path with SVC_MODEL');
});

t.test('a transfer that goes silent times out and keeps its progress', async (t) => {
  const dir = await freshDir();
  mode = 'stall';
  const error = await downloadError(downloadModel('fake', { dir, manifest: manifest(), idleTimeoutMs: 300 }));
  t.equal(error.code, 'interrupted');
  t.match(error.message, /no data for 0\.3 s/);
  t.ok((await readFile(join(dir, 'ggml-fake.bin.part'))).length > 0);
  server.closeAllConnections();
});

t.test('refusals before any transfer', async (t) => {
  const dir = await freshDir();
  const unknown = await downloadError(downloadModel('nope', { dir, manifest: manifest() }));
  t.equal(unknown.code, 'unknown_model');
  t.match(unknown.message, /known models: fake/);

  const unverifiable = await downloadError(downloadModel('fake', { dir, manifest: manifest({ sha256: undefined }) }));
  t.equal(unverifiable.code, 'unverifiable');
  t.match(unverifiable.message, /--no-verify/);
  t.equal(requests.length, 0, 'nothing was requested');

  const path = await downloadModel('fake', { dir, manifest: manifest({ sha256: undefined }), verify: false });
  t.ok((await readFile(path)).equals(content), '--no-verify downloads it anyway');

  mode = 'not-found';
  const missing = await downloadError(downloadModel('fake', { dir: join(dir, 'other'), manifest: manifest() }));
  t.equal(missing.code, 'http_error');
  t.match(missing.message, /HTTP 404/);
});

t.test('a mirror base URL replaces the manifest host', async (t) => {
  const dir = await freshDir();
  const path = await downloadModel('fake', {
    dir,
    manifest: manifest({ url: 'https://unreachable.invalid/ggml-fake.bin' }),
    baseUrl: `http://127.0.0.1:${port}/`,
  });
  t.equal(requests[0].url, '/ggml-fake.bin');
  t.ok((await readFile(path)).equals(content));
});
