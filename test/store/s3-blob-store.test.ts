// S3BlobStore's own cases, against s3rver on loopback: the bucket layout under a prefix, the
// presigned POST form (its policy and SigV4 signature checked here, since s3rver does not enforce
// policies), collecting and discarding direct uploads, their sweep, the public endpoint, and how
// storage failures become the store's errors. The BlobStore contract is in blob-store.test.ts.
import { createHmac } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';

import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import t, { type Test } from 'tap';

import { BlobNotFoundError, BlobStoreUnavailableError, DirectUploadMismatchError, type DirectUploadPolicy } from '../../src/store/blob-store.js';
import { S3BlobStore } from '../../src/store/s3/s3-blob-store.js';
import { type S3BlobStoreSettings, S3SettingsError } from '../../src/store/s3/s3-settings.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { s3StoreSettings, startS3Server } from '../helpers/s3-server.js';

const PREFIX = 'svc-stt/';
const HOUR = 3_600_000;

async function openStore(t: Test, overrides: Partial<S3BlobStoreSettings> = {}) {
  const server = await startS3Server();
  const settings: S3BlobStoreSettings = { ...s3StoreSettings(server, t.testdir(), PREFIX), ...overrides };
  const store = new S3BlobStore(settings);
  const raw = new S3Client({ region: server.region, endpoint: server.endpoint, forcePathStyle: true, credentials: server.credentials });
  t.teardown(async () => {
    store.close();
    raw.destroy();
    await server.close();
  });
  const objectBytes = async (key: string) => {
    const object = await raw.send(new GetObjectCommand({ Bucket: server.bucket, Key: key }));
    return Buffer.from(await object.Body!.transformToByteArray());
  };
  const objectExists = (key: string) =>
    raw.send(new HeadObjectCommand({ Bucket: server.bucket, Key: key })).then(
      () => true,
      () => false,
    );
  return { server, store, raw, settings, objectBytes, objectExists };
}

const policyFor = (jobId: string, bytes: Buffer, overrides: Partial<DirectUploadPolicy> = {}): DirectUploadPolicy => ({
  jobId,
  contentType: 'audio/wav',
  contentLength: bytes.length,
  // A whole second ahead, so the policy's expiration can be compared exactly.
  expiresAtMs: Math.floor(Date.now() / 1000) * 1000 + 3_600_000,
  ...overrides,
});

/** Posts the form as a browser would: its fields, then the file. */
async function postForm(form: { url: string; fields: Record<string, string> }, bytes: Buffer, type = 'audio/wav'): Promise<Response> {
  const body = new FormData();
  for (const [name, value] of Object.entries(form.fields)) body.append(name, value);
  body.append('file', new Blob([new Uint8Array(bytes)], { type }), 'recording.wav');
  return fetch(form.url, { method: 'POST', body });
}

t.test('the bucket layout under the prefix; a spooled upload is uploaded, then removed locally', async (t) => {
  const { store, objectBytes } = await openStore(t);
  const upload = store.createUploadPath('direct');
  const bytes = Buffer.alloc(5 * 1024 * 1024 + 17, 3);
  writeFileSync(upload, bytes);
  const audio = await store.moveToJobAudio(upload, 'job_1');
  t.equal(audio, `${PREFIX}jobs/job_1.audio`);
  t.notOk(existsSync(upload), 'the spool file is gone');
  t.same(await objectBytes(audio), bytes, 'the object has the upload byte for byte (no transfer encoding stored)');
  t.equal((await store.writeResult('job_1', { kind: 'partial', revision: 2 }, '{}')).path, `${PREFIX}results/job_1.partial-2`);
  t.equal((await store.writeResult('job_1', { kind: 'final' }, '{}')).path, `${PREFIX}results/job_1.result`);
  t.equal((await store.writeResult('job_1', { kind: 'final', revision: 2 }, '{}')).path, `${PREFIX}results/job_1.result-2`);
  const source = await store.audioSource(audio);
  t.match(source, { kind: 'url', label: `s3://svc-stt-test/${PREFIX}jobs/job_1.audio` });
  t.ok(store.directUploads, 'presigned uploads go straight to the bucket');
});

t.test('a presigned URL is valid for the seconds asked, and refused after', async (t) => {
  const { store } = await openStore(t);
  const upload = store.createUploadPath('direct');
  writeFileSync(upload, 'abc');
  const audio = await store.moveToJobAudio(upload, 'job_1');
  const source = await store.audioSource(audio, 1);
  if (source.kind !== 'url') throw new Error('a URL source');
  t.match(new URL(source.url).searchParams.get('X-Amz-Expires'), '1');
  await new Promise((resolve) => setTimeout(resolve, 2100));
  t.equal((await fetch(source.url)).status, 403, 'expired');
  for (const seconds of [0, -1, 1.5, 8 * 24 * 3600]) await t.rejects(store.audioSource(audio, seconds), RangeError, `${seconds} s`);
});

t.test('the upload form: S3 POST policy with the exact key, type, length and expiry, signed SigV4', async (t) => {
  const { store, settings } = await openStore(t);
  const bytes = Buffer.from('RIFF fake wave bytes');
  const policy = policyFor('job_form', bytes);
  const form = await store.directUploads.form(policy);
  t.equal(form.url, `${settings.endpoint}/${settings.bucket}`, 'path-style bucket URL');
  const { fields } = form;
  t.equal(fields.key, `${PREFIX}uploads/job_form`);
  t.equal(fields['Content-Type'], 'audio/wav');
  t.equal(fields['X-Amz-Algorithm'], 'AWS4-HMAC-SHA256');
  t.match(fields['X-Amz-Date'], /^\d{8}T\d{6}Z$/);
  const shortDate = fields['X-Amz-Date'].slice(0, 8);
  t.equal(fields['X-Amz-Credential'], `S3RVER/${shortDate}/${settings.region}/s3/aws4_request`);
  t.match(fields['X-Amz-Signature'], /^[0-9a-f]{64}$/);

  const document = JSON.parse(Buffer.from(fields.Policy, 'base64').toString('utf8')) as { expiration: string; conditions: unknown[] };
  t.equal(Date.parse(document.expiration), policy.expiresAtMs, 'expires exactly when the slot does (to the second)');
  t.same(
    document.conditions,
    [
      ['content-length-range', bytes.length, bytes.length],
      { 'Content-Type': 'audio/wav' },
      { bucket: settings.bucket },
      { 'X-Amz-Algorithm': 'AWS4-HMAC-SHA256' },
      { 'X-Amz-Credential': fields['X-Amz-Credential'] },
      { 'X-Amz-Date': fields['X-Amz-Date'] },
      { key: `${PREFIX}uploads/job_form` },
    ],
    'exactly these conditions: one length, one type, this bucket, this key',
  );

  // SigV4 for POST: the signature is an HMAC of the base64 policy under the derived signing key.
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
  const kDate = hmac(`AWS4${settings.credentials!.secretAccessKey}`, shortDate);
  const kSigning = hmac(hmac(hmac(kDate, settings.region), 's3'), 'aws4_request');
  t.equal(fields['X-Amz-Signature'], hmac(kSigning, fields.Policy).toString('hex'), 'the signature verifies');

  const other = await store.directUploads.form({ ...policy, expiresAtMs: policy.expiresAtMs + 1999 });
  t.equal(
    Date.parse((JSON.parse(Buffer.from(other.fields.Policy, 'base64').toString('utf8')) as { expiration: string }).expiration),
    policy.expiresAtMs + 1000,
    'an expiry between seconds is the second it falls in',
  );
  await t.rejects(store.directUploads.form({ ...policy, expiresAtMs: Date.now() - 1000 }), RangeError, 'an expired slot has no form');
  await t.rejects(store.directUploads.form({ ...policy, jobId: '../x' }), { name: 'BlobPathError' });
});

t.test('collect: the posted object is copied to fresh job audio; discard then removes the upload object', async (t) => {
  const { store, objectBytes, objectExists } = await openStore(t);
  const bytes = Buffer.from('ID3 pretend audio, posted by a browser');
  const policy = policyFor('job_up', bytes);
  t.equal(await store.directUploads.collect(policy), null, 'nothing posted yet');

  const form = await store.directUploads.form(policy);
  const posted = await postForm(form, bytes);
  t.equal(posted.status, 204, 'the bucket took the form');
  const uploadKey = form.fields.key;
  t.equal(await objectExists(uploadKey), true);

  const audio = await store.directUploads.collect(policy);
  t.match(audio, new RegExp(`^${PREFIX}jobs/[0-9a-f-]{36}\\.audio$`), 'a fresh job audio key');
  t.same(await objectBytes(audio!), bytes, 'the posted bytes');
  t.equal(await objectExists(uploadKey), true, 'the upload object stays until the caller recorded the copy');
  await store.directUploads.discard('job_up');
  t.equal(await objectExists(uploadKey), false, 'then it goes');
  t.equal(await store.directUploads.collect(policy), null, 'nothing left to collect');

  t.equal((await postForm(form, Buffer.from('a re-post with other bytes!!!!!!!!!!!!'))).status, 204);
  t.same(await objectBytes(audio!), bytes, "a re-post of the form cannot change the job's audio");
  await store.directUploads.discard('job_up');
  t.equal(await objectExists(uploadKey), false, 'discard removes the re-posted object');
  await store.directUploads.discard('job_up');
  t.pass('discarding nothing is fine');
});

t.test('collect: an upload of another length or type is refused and deleted', async (t) => {
  const { store, objectExists } = await openStore(t);
  const bytes = Buffer.from('exactly what the form declared');
  for (const [what, body, type] of [
    ['one byte short', bytes.subarray(1), 'audio/wav'],
    ['one byte more', Buffer.concat([bytes, Buffer.from('!')]), 'audio/wav'],
    ['another content type', bytes, 'audio/mpeg'],
  ] as const) {
    const policy = policyFor(`job_${what.replace(/\W/g, '_')}`, bytes);
    const form = await store.directUploads.form(policy);
    // s3rver stores what the policy forbids; S3 itself would refuse it at the door.
    const fields = type === 'audio/wav' ? form.fields : { ...form.fields, 'Content-Type': type };
    t.equal((await postForm({ url: form.url, fields }, body, type)).status, 204);
    const error = await store.directUploads.collect(policy).catch((e: unknown) => e);
    t.ok(error instanceof DirectUploadMismatchError, `${what}: DirectUploadMismatchError`);
    t.match(error, { expected: { contentLength: bytes.length, contentType: 'audio/wav' }, actual: { contentLength: body.length, contentType: type } });
    t.equal(await objectExists(form.fields.key), false, `${what}: deleted`);
  }
});

t.test('sweepOrphans: direct uploads go once old and their job no longer awaits them', async (t) => {
  const { store, server, raw, objectExists } = await openStore(t);
  const put = async (key: string, ageMs: number) => {
    await raw.send(new PutObjectCommand({ Bucket: server.bucket, Key: key, Body: 'posted' }));
    server.ageObject(key, ageMs);
  };
  await put(`${PREFIX}uploads/job_awaiting`, 2 * HOUR);
  await put(`${PREFIX}uploads/job_closed`, 2 * HOUR);
  await put(`${PREFIX}uploads/job_fresh`, 0);
  await put(`${PREFIX}uploads/not.ours`, 2 * HOUR);
  await put('uploads/job_closed', 2 * HOUR); // outside the prefix
  const asked: string[] = [];
  const removed = await store.sweepOrphans(
    {
      isReferenced: async () => false,
      isAwaitingUpload: async (jobId) => {
        asked.push(jobId);
        return jobId === 'job_awaiting';
      },
    },
    HOUR,
  );
  t.equal(removed, 1);
  t.same(asked.sort(), ['job_awaiting', 'job_closed']);
  t.equal(await objectExists(`${PREFIX}uploads/job_closed`), false, 'its slot closed or expired');
  t.equal(await objectExists(`${PREFIX}uploads/job_awaiting`), true, 'its form may still be posted');
  t.equal(await objectExists(`${PREFIX}uploads/job_fresh`), true, 'being posted right now');
  t.equal(await objectExists(`${PREFIX}uploads/not.ours`), true, 'not a name the store hands out');
  t.equal(await objectExists('uploads/job_closed'), true, 'another prefix');
});

t.test('with a public endpoint, forms are signed for it; audio URLs (for workers) for the internal one', async (t) => {
  const server = await startS3Server();
  t.teardown(() => server.close());
  // The service and its workers reach the bucket by one name; browsers by another.
  const store = new S3BlobStore({
    bucket: server.bucket,
    region: server.region,
    endpoint: `http://localhost:${server.port}`,
    publicEndpoint: server.endpoint,
    forcePathStyle: true,
    credentials: server.credentials,
    spoolDir: t.testdir(),
  });
  t.teardown(() => store.close());
  const upload = store.createUploadPath('direct');
  writeFileSync(upload, 'public bytes');
  const audio = await store.moveToJobAudio(upload, 'job_pub');
  t.equal(audio, 'jobs/job_pub.audio', 'no prefix: the bucket root');
  const source = await store.audioSource(audio);
  if (source.kind !== 'url') throw new Error('a URL source');
  t.ok(source.url.startsWith(`http://localhost:${server.port}/${server.bucket}/jobs/job_pub.audio?`), 'the internal address');
  t.equal(await (await fetch(source.url)).text(), 'public bytes');
  const form = await store.directUploads.form(policyFor('job_pub2', Buffer.from('x')));
  t.equal(form.url, `${server.endpoint}/${server.bucket}`);
});

t.test('storage failures become BlobStoreUnavailableError; a missing object is BlobNotFoundError', async (t) => {
  const { store, server, settings } = await openStore(t);
  const upload = store.createUploadPath('direct');
  writeFileSync(upload, 'abc');
  const audio = await store.moveToJobAudio(upload, 'job_1');
  const { path: result } = await store.writeResult('job_1', { kind: 'final' }, '{}');
  await store.delete(result);
  const missing = await store.readResult(result).catch((e: unknown) => e);
  t.ok(missing instanceof BlobNotFoundError, 'a 404 is BlobNotFoundError');
  t.match(missing, { code: 'ENOENT', ref: result });

  const unavailable = async (what: string, call: () => Promise<unknown>) => {
    const error = await call().then(
      () => null,
      (e: unknown) => e,
    );
    t.ok(error instanceof BlobStoreUnavailableError, `${what}: BlobStoreUnavailableError`);
    t.ok((error as Error | null)?.cause, `${what}: with the cause`);
  };

  const wrongBucket = new S3BlobStore({ ...settings, bucket: 'no-such-bucket' });
  t.teardown(() => wrongBucket.close());
  await unavailable('a missing bucket: ping', () => wrongBucket.ping());
  await unavailable('a missing bucket: read', () => wrongBucket.readResult(result));
  const wrongKey = new S3BlobStore({ ...settings, credentials: { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'x' } });
  t.teardown(() => wrongKey.close());
  await unavailable('credentials refused (403): exists', () => wrongKey.exists(audio));
  await unavailable('credentials refused (403): ping', () => wrongKey.ping());

  await server.stop();
  const upload2 = store.createUploadPath('direct');
  writeFileSync(upload2, 'abc');
  await unavailable('server down: ping', () => store.ping());
  await unavailable('server down: exists', () => store.exists(audio));
  await unavailable('server down: readRange', () => store.readRange(audio, 0, 4));
  await unavailable('server down: readResult', () => store.readResult(result));
  await unavailable('server down: writeResult', () => store.writeResult('job_1', { kind: 'final' }, '{}'));
  await unavailable('server down: delete', () => store.delete(audio));
  await unavailable('server down: moveToJobAudio', () => store.moveToJobAudio(upload2, 'job_2'));
  t.ok(existsSync(upload2), 'an upload that could not be stored stays for the caller to delete');
  await unavailable('server down: collect', () => store.directUploads.collect(policyFor('job_3', Buffer.from('x'))));
  await unavailable('server down: sweep', () => store.sweepOrphans({ isReferenced: async () => false, isAwaitingUpload: async () => false }, 0));
  await unavailable('server down: openResult', () => streamError(store.openResult(result)));
  const source = await store.audioSource(audio);
  t.equal(source.kind, 'url', 'signing needs no server: an audio URL is still handed out (ffmpeg reports the outage)');

  await server.start();
  await store.ping();
  t.equal(await store.exists(audio), true, 'the same store works again once the server is back');
});

t.test('a bucket behind a link that drops packets: small calls fail as unavailable rather than hang', async (t) => {
  const { store, server, settings } = await openStore(t);
  const upload = store.createUploadPath('direct');
  writeFileSync(upload, 'abc');
  const audio = await store.moveToJobAudio(upload, 'job_1');
  const { path: result } = await store.writeResult('job_1', { kind: 'final' }, '{}');
  // The same bucket through a proxy that accepts connections and never answers (SMALL_CALL_DEADLINE_MS each).
  const proxy = await startFaultProxy({ port: server.port });
  t.teardown(() => proxy.close());
  const holed = new S3BlobStore({ ...settings, endpoint: `http://127.0.0.1:${proxy.port}` });
  t.teardown(() => holed.close());
  proxy.cut('blackhole');
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['readResult', () => holed.readResult(result)],
    ['exists', () => holed.exists(audio)],
    ['readRange', () => holed.readRange(audio, 0, 2)],
    ['delete', () => holed.delete(result)],
    ['ping', () => holed.ping()],
  ];
  const errors = await Promise.all(
    calls.map(([, call]) =>
      call().then(
        () => null,
        (e: unknown) => e,
      ),
    ),
  );
  calls.forEach(([what], i) => t.ok(errors[i] instanceof BlobStoreUnavailableError, `${what}: BlobStoreUnavailableError`));
  await proxy.restore();
  t.same(await holed.readResult(result), Buffer.from('{}'), 'the link back: the same store reads again');
});

t.test('settings are checked as a whole', async (t) => {
  const error = (() => {
    try {
      new S3BlobStore({ bucket: 'A', region: '', endpoint: 'ftp://x', forcePathStyle: true, prefix: '../', spoolDir: '' });
    } catch (e) {
      return e;
    }
  })();
  t.ok(error instanceof S3SettingsError);
  t.equal((error as S3SettingsError).problems.length, 5, 'bucket, region, endpoint, prefix, spool');
  const spoolDir = t.testdir();
  for (const prefix of ['a', '/a/', 'a//', './', 'a/../']) {
    t.throws(() => new S3BlobStore({ bucket: 'abc', region: 'r', forcePathStyle: true, prefix, spoolDir }), S3SettingsError, `prefix ${prefix}`);
  }
});

function streamError(stream: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('error', reject);
    stream.once('end', resolve);
    stream.resume();
  });
}
