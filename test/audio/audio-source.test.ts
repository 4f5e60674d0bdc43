// Job audio read in place from object storage: ffmpeg and ffprobe on a presigned s3rver URL give the
// same container, probe and samples as on the local file (an MP4 with its index at the end included:
// that takes Range requests), the sniffer reads through the store's ranges, and a storage failure —
// deleted object, expired URL, server down, a body cut short — is AudioSourceUnavailableError, never
// undecodable audio or a silently short window. No mocks: real ffmpeg, real HTTP.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';

import t, { type Test } from 'tap';

import { redactSourceText } from '../../src/audio/audio-source-failure.js';
import { safeInputArgs } from '../../src/audio/ffmpeg-input-args.js';
import {
  type AudioContainer,
  type AudioSource,
  AudioSourceUnavailableError,
  decodeAudioWindow,
  probeAudio,
  sniffFile,
  sniffWithReader,
  UndecodableAudioError,
} from '../../src/audio/index.js';
import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
import { S3BlobStore } from '../../src/store/s3/s3-blob-store.js';
import { encodeAs, type FixtureFormat, speechWav } from '../helpers/audio-fixtures.js';
import { type S3TestServer, startS3Server } from '../helpers/s3-server.js';

const SECONDS = 20;
const TIMEOUT_MS = 60_000;

interface Bucket {
  server: S3TestServer;
  store: S3BlobStore;
  /** Stores a local file as job audio; returns its ref. */
  put(path: string, jobId: string): Promise<string>;
}

async function openBucket(t: Test): Promise<Bucket> {
  const server = await startS3Server();
  const store = new S3BlobStore({
    bucket: server.bucket,
    region: server.region,
    endpoint: server.endpoint,
    forcePathStyle: true,
    credentials: server.credentials,
    prefix: 'audio-test/',
    spoolDir: t.testdir(),
  });
  t.teardown(async () => {
    store.close();
    await server.close();
  });
  return {
    server,
    store,
    async put(path, jobId) {
      const upload = store.createUploadPath('test');
      copyFileSync(path, upload);
      return store.moveToJobAudio(upload, jobId);
    },
  };
}

const urlOf = (source: AudioSource) => {
  if (source.kind !== 'url') throw new Error('expected a URL source');
  return source;
};

/** ISO-BMFF top-level box types in file order. */
function topLevelBoxes(bytes: Buffer): string[] {
  const boxes: string[] = [];
  for (let at = 0; at + 8 <= bytes.length;) {
    const size = bytes.readUInt32BE(at);
    boxes.push(bytes.toString('latin1', at + 4, at + 8));
    if (size < 8) break;
    at += size;
  }
  return boxes;
}

t.test('an MP4 with its index at the end probes and decodes mid-file from a presigned URL exactly as from disk', async (t) => {
  const { store, put } = await openBucket(t);
  const m4a = await encodeAs(await speechWav(SECONDS), 'm4a');
  const boxes = topLevelBoxes(readFileSync(m4a));
  t.ok(boxes.indexOf('moov') > boxes.indexOf('mdat'), `moov after mdat (${boxes.join(' ')}): reading it takes a seek`);
  const ref = await put(m4a, 'job_m4a');
  const source = urlOf(await store.audioSource(ref));

  const container = await sniffWithReader((offset, length) => store.readRange(ref, offset, length));
  t.equal(container, 'mp4');
  t.same(await probeAudio(source, { timeoutMs: TIMEOUT_MS, container: 'mp4' }), await probeAudio(m4a, { timeoutMs: TIMEOUT_MS }), 'the same probe');

  const window = { startSeconds: 7.5, seconds: 6, container: 'mp4' as const, timeoutMs: TIMEOUT_MS };
  const fromUrl = await decodeAudioWindow(source, window);
  const fromFile = await decodeAudioWindow(m4a, window);
  t.equal(fromUrl.length, 6 * SAMPLE_RATE);
  t.same(Buffer.from(fromUrl.buffer), Buffer.from(fromFile.buffer), 'the same samples, bit for bit');
  const tail = await decodeAudioWindow(source, { ...window, startSeconds: SECONDS - 2 });
  t.ok(tail.length > 1.9 * SAMPLE_RATE && tail.length <= 2.1 * SAMPLE_RATE, 'the last window ends with the recording');
});

t.test('every container: sniff, probe and a window through the bucket match the local file', async (t) => {
  const { store, put } = await openBucket(t);
  const wav = await speechWav(SECONDS);
  const formats: FixtureFormat[] = ['wav', 'mp3', 'webm', 'webm-live', 'ogg', 'opus', 'flac', 'aac', 'mp4'];
  for (const format of formats) {
    const path = await encodeAs(wav, format);
    const ref = await put(path, `job_${format.replace('-', '_')}`);
    const container = (await sniffWithReader((offset, length) => store.readRange(ref, offset, length))) as AudioContainer;
    t.equal(container, await sniffFile(path), `${format}: sniffed as ${container}`);
    const source = await store.audioSource(ref);
    // webm-live and aac have no duration in their headers: the probe scans every packet over HTTP.
    t.same(await probeAudio(source, { timeoutMs: TIMEOUT_MS, container }), await probeAudio(path, { timeoutMs: TIMEOUT_MS }), `${format}: probe`);
    const window = { startSeconds: 11, seconds: 4, container, timeoutMs: TIMEOUT_MS };
    const [fromUrl, fromFile] = [await decodeAudioWindow(source, window), await decodeAudioWindow(path, window)];
    t.ok(fromUrl.length > 0, `${format}: samples`);
    t.same(Buffer.from(fromUrl.buffer), Buffer.from(fromFile.buffer), `${format}: the same window`);
  }
});

t.test('the sniffer reads past an ID3 tag larger than its first read through the store', async (t) => {
  const { store, put } = await openBucket(t);
  const flac = readFileSync(await encodeAs(await speechWav(3), 'flac'));
  const tagSize = 100_000;
  const header = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, (tagSize >> 21) & 0x7f, (tagSize >> 14) & 0x7f, (tagSize >> 7) & 0x7f, tagSize & 0x7f]);
  const path = `${t.testdir()}/tagged.flac`;
  writeFileSync(path, Buffer.concat([header, Buffer.alloc(tagSize), flac]));
  const ref = await put(path, 'job_id3');
  const reads: Array<[number, number]> = [];
  const container = await sniffWithReader((offset, length) => {
    reads.push([offset, length]);
    return store.readRange(ref, offset, length);
  });
  t.equal(container, 'flac');
  t.ok(
    reads.every(([, length]) => length <= 4096),
    `small range reads only: ${JSON.stringify(reads)}`,
  );
});

t.test('storage failures are AudioSourceUnavailableError, with the URL out of the details', async (t) => {
  const { store, server, put } = await openBucket(t);
  const mp3 = await encodeAs(await speechWav(SECONDS), 'mp3');
  const ref = await put(mp3, 'job_gone');
  const window = { startSeconds: 2, seconds: 4, container: 'mp3' as const, timeoutMs: TIMEOUT_MS };

  const expectUnavailable = async (what: string, run: () => Promise<unknown>, reason: string, httpStatus: number | null, source: AudioSource) => {
    const error = await run().then(
      () => null,
      (e: unknown) => e,
    );
    t.ok(error instanceof AudioSourceUnavailableError, `${what}: AudioSourceUnavailableError`);
    t.notOk(error instanceof UndecodableAudioError, `${what}: not undecodable audio`);
    t.match(error, { reason, httpStatus, label: urlOf(source).label }, `${what}: ${reason}`);
    const detail = (error as AudioSourceUnavailableError).detail;
    t.notMatch(detail, /X-Amz-Signature|X-Amz-Credential/, `${what}: no signature in the detail`);
    t.notOk(detail.includes(urlOf(source).url), `${what}: no URL in the detail`);
    t.ok(detail.includes(urlOf(source).label), `${what}: the label instead`);
    t.notMatch(JSON.stringify(error), /X-Amz/, `${what}: nor in what serialises`);
  };

  const expiring = await store.audioSource(ref, 1);
  await new Promise((resolve) => setTimeout(resolve, 2100));
  await expectUnavailable('expired URL: probe', () => probeAudio(expiring, { timeoutMs: TIMEOUT_MS, container: 'mp3' }), 'forbidden', 403, expiring);
  await expectUnavailable('expired URL: window', () => decodeAudioWindow(expiring, window), 'forbidden', 403, expiring);

  const source = await store.audioSource(ref);
  await store.delete(ref);
  await expectUnavailable('deleted object: probe', () => probeAudio(source, { timeoutMs: TIMEOUT_MS, container: 'mp3' }), 'not_found', 404, source);
  await expectUnavailable('deleted object: window', () => decodeAudioWindow(source, window), 'not_found', 404, source);

  await server.stop();
  await expectUnavailable('server down: window', () => decodeAudioWindow(source, window), 'unreachable', null, source);
  await expectUnavailable('server down: probe', () => probeAudio(source, { timeoutMs: TIMEOUT_MS, container: 'mp3' }), 'unreachable', null, source);
});

/**
 * A file served over HTTP with Range support, where each response may be cut short or refused:
 * what a flaky network, a restarting server or an expiring URL does to a long read.
 */
async function rangeServer(t: Test, bytes: Buffer, behave: (request: number) => 'serve' | 'cut' | 'forbid' | { redirect: string }) {
  const ranges: string[] = [];
  const server: Server = createServer((req, res) => {
    const request = ranges.push(req.headers.range ?? '(none)');
    const action = behave(request);
    if (action === 'forbid') return void res.writeHead(403).end('expired');
    if (typeof action === 'object') return void res.writeHead(302, { location: action.redirect }).end();
    const match = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const start = match ? Number(match[1]) : 0;
    const end = match?.[2] ? Number(match[2]) : bytes.length - 1;
    res.writeHead(match ? 206 : 200, {
      'accept-ranges': 'bytes',
      'content-length': end - start + 1,
      ...(match ? { 'content-range': `bytes ${start}-${end}/${bytes.length}` } : {}),
    });
    const body = bytes.subarray(start, end + 1);
    if (action === 'cut') {
      // A third of the body, then the connection drops.
      res.write(body.subarray(0, Math.floor(body.length / 3)), () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const source: AudioSource = { kind: 'url', url: `http://127.0.0.1:${port}/audio?X-Amz-Signature=s3cr3t`, label: 'test://audio' };
  return { source, ranges };
}

t.test('a long read: seeks are Range requests; a cut connection resumes; a cut that cannot resume fails loudly', async (t) => {
  const wavPath = await speechWav(60);
  const wav = readFileSync(wavPath);
  const window = { startSeconds: 40, seconds: 10, container: 'wav' as const, timeoutMs: TIMEOUT_MS };
  const expected = await decodeAudioWindow(wavPath, window);

  const healthy = await rangeServer(t, wav, () => 'serve');
  t.same(Buffer.from((await decodeAudioWindow(healthy.source, window)).buffer), Buffer.from(expected.buffer), 'served whole: the same samples');
  const offsets = healthy.ranges.map((range) => Number(/^bytes=(\d+)-/.exec(range)?.[1] ?? -1));
  t.ok(
    offsets.some((offset) => offset >= 40 * 16_000 * 2),
    `ffmpeg seeked past 40 s with a Range request (${healthy.ranges.join(', ')})`,
  );

  const flaky = await rangeServer(t, wav, (request) => (request === 2 ? 'cut' : 'serve'));
  t.same(Buffer.from((await decodeAudioWindow(flaky.source, window)).buffer), Buffer.from(expected.buffer), 'a connection cut once: resumed, the same samples');

  const expiring = await rangeServer(t, wav, (request) => (request === 2 ? 'cut' : request > 2 ? 'forbid' : 'serve'));
  const error = await decodeAudioWindow(expiring.source, window).then(
    (samples) => samples,
    (e: unknown) => e,
  );
  t.ok(error instanceof AudioSourceUnavailableError, 'cut, and the resume refused: an error, not a short window');
  t.match(error, { reason: 'unreachable', label: 'test://audio' });
  t.notMatch((error as AudioSourceUnavailableError).detail ?? '', /s3cr3t/, 'the signature is out of the detail');
});

t.test('a probe whose connections close before any answer (a proxy before a stopped bucket) finds storage unreachable', async (t) => {
  // Every request is read and the connection closed without a byte back, the reconnects' too.
  // (A decode, at ffmpeg's quiet log level, cannot tell this from a file cut inside its header:
  // the job asks storage before it blames the recording, src/jobs/job-audio-blame.ts.)
  const closer = createTcpServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.on('data', () => socket.destroy());
  });
  await new Promise<void>((resolve) => closer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => closer.close(() => resolve())));
  const { port } = closer.address() as AddressInfo;
  const source: AudioSource = { kind: 'url', url: `http://127.0.0.1:${port}/audio?X-Amz-Signature=s3cr3t`, label: 'test://audio' };
  const error = await probeAudio(source, { timeoutMs: TIMEOUT_MS, container: 'wav' }).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(error instanceof AudioSourceUnavailableError, 'AudioSourceUnavailableError (the job is retried), not undecodable audio');
  t.match(error, { reason: 'unreachable', httpStatus: null, label: 'test://audio' });
});

t.test('a redirect cannot lead ffmpeg off HTTP, e.g. to a local file', async (t) => {
  const wav = await speechWav(5);
  const window = { startSeconds: 0, seconds: 4, container: 'wav' as const, timeoutMs: TIMEOUT_MS };
  t.ok((await decodeAudioWindow(wav, window)).length > 0, 'the file itself decodes');
  const redirecting = await rangeServer(t, Buffer.alloc(0), () => ({ redirect: `file://${wav}` }));
  // ffmpeg's http follows a Location only as http(s), and the whitelist has no `file` anyway.
  await t.rejects(decodeAudioWindow(redirecting.source, window), 'the redirect leads nowhere');
});

t.test('damaged or cut-off recordings at a healthy URL are still undecodable audio, as on disk', async (t) => {
  const { store, put } = await openBucket(t);
  const dir = t.testdir();
  const noise = `${dir}/noise.bin`;
  writeFileSync(noise, Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7919) % 251)));
  const cases: Array<[string, string, AudioContainer]> = [['noise', noise, 'mp4']];
  // Files that end inside their headers. Matroska's demuxer then fails with EIO ("Input/output
  // error"), the message a cut connection also ends with: only the http layer's own complaint tells
  // storage failures apart, and here there is none.
  const wav = await speechWav(SECONDS);
  for (const [format, container] of [
    ['webm', 'webm'],
    ['webm-live', 'webm'],
    ['ogg', 'ogg'],
    ['mp3', 'mp3'],
    ['m4a', 'mp4'],
  ] as const) {
    const bytes = readFileSync(await encodeAs(wav, format));
    const path = `${dir}/${format}-head`;
    writeFileSync(path, bytes.subarray(0, Math.ceil(bytes.length * (format === 'm4a' ? 0.5 : 0.002))));
    cases.push([`${format} cut short`, path, container]);
  }
  for (const [what, path, container] of cases) {
    const source = await store.audioSource(await put(path, `job_${what.replace(/\W/g, '_')}`));
    const window = { startSeconds: 5, seconds: 4, container, timeoutMs: TIMEOUT_MS };
    await t.rejects(decodeAudioWindow(path, window), UndecodableAudioError, `${what}: undecodable from disk`);
    await t.rejects(decodeAudioWindow(source, window), UndecodableAudioError, `${what}: undecodable from the URL`);
    await t.rejects(probeAudio(source, { timeoutMs: TIMEOUT_MS, container }), UndecodableAudioError, `${what}: probe from the URL`);
  }
});

t.test('input arguments: exactly the protocols of the URL scheme, the forced demuxer, the URL as input', async (t) => {
  t.same(safeInputArgs('/data/x.audio', 'mp3'), ['-protocol_whitelist', 'file,pipe', '-f', 'mp3', '-i', 'file:/data/x.audio']);
  const http = safeInputArgs({ kind: 'url', url: 'http://s3.local/b/k?sig=1', label: 'l' }, 'mp4');
  t.same(http.slice(0, 2), ['-protocol_whitelist', 'http,tcp']);
  t.same(http.slice(-4), ['-f', 'mov', '-i', 'http://s3.local/b/k?sig=1']);
  t.same(safeInputArgs({ kind: 'url', url: 'https://s3.example/b/k', label: 'l' }, 'wav').slice(0, 2), ['-protocol_whitelist', 'https,tls,tcp']);
  for (const url of ['file:///etc/passwd', 'ftp://host/x', 'concat:a|b', 'not a url', '-i']) {
    t.throws(() => safeInputArgs({ kind: 'url', url, label: 'l' }, 'wav'), RangeError, url);
  }
  await t.rejects(probeAudio({ kind: 'url', url: 'http://127.0.0.1:9/x', label: 'l' }, { timeoutMs: 1000 }), TypeError, 'a URL source needs its container');
});

t.test('redaction: the URL becomes its label, and a tail cut inside a URL loses the piece', async (t) => {
  const source: AudioSource = { kind: 'url', url: 'http://h/b/k?X-Amz-Credential=AK%2F1&X-Amz-Signature=abc', label: 's3://b/k' };
  t.equal(redactSourceText(`${source.url}: Server returned 404 Not Found\n`, source), 's3://b/k: Server returned 404 Not Found\n');
  const cut = `2F1&X-Amz-Signature=abc: Input/output error\n${'x'.repeat(4100)}\nlast line\n`;
  t.notMatch(redactSourceText(cut, source), /abc|Amz/, 'a cut tail drops its first line');
  t.equal(redactSourceText('[http @ 0x1] GET /b/k?X-Amz-Signature=zzz failed', source), '[http @ 0x1] GET [redacted] failed');
  t.equal(redactSourceText('file stays', { kind: 'file', path: '/x' }), 'file stays');
});
