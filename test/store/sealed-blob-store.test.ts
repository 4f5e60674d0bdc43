// Job audio and results sealed at rest (src/store/sealed-blob-store.ts) on local disk and on the
// loopback S3 server: what is stored is a sealed stream that holds none of the content, opens only
// for its tenant and its own blob name, reads back whole, as a stream, and by byte range (frames
// crossed), and is served to ffmpeg's reads by Range over the loopback source. Blobs stored before
// sealing are served as they are.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';

import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import t, { type Test } from 'tap';

import type { BlobStore } from '../../src/store/blob-store.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { LocalBlobStore } from '../../src/store/local-blob-store.js';
import { S3BlobStore } from '../../src/store/s3/s3-blob-store.js';
import { SealedBlobStore } from '../../src/store/sealed-blob-store.js';
import { FRAME_BYTES } from '../../src/store/sealed-stream.js';
import { SealingError } from '../../src/store/sealing-error.js';
import { s3StoreSettings, startS3Server } from '../helpers/s3-server.js';
import { testSealer } from '../helpers/test-sealer.js';
import { sqliteDatabases } from './contract/store-databases.js';

const TENANT = 'tenant-sealed';
/** Content that is easy to find if it were stored as it is: a repeated phrase around random bytes. */
const PHRASE = 'Quillfeather zebrafish 4417 metoprolol';

interface Harness {
  raw: BlobStore;
  /** The stored bytes of a ref, read past the store. */
  stored(ref: string): Promise<Buffer>;
}

const harnesses: Record<string, (t: Test, dir: string) => Promise<Harness>> = {
  'local disk': async (_t, dir) => {
    const raw = new LocalBlobStore(join(dir, 'blobs'));
    const { readFile } = await import('node:fs/promises');
    return { raw, stored: (ref) => readFile(ref) };
  },
  S3: async (t, dir) => {
    const server = await startS3Server();
    mkdirSync(join(dir, 'spool'));
    const raw = new S3BlobStore(s3StoreSettings(server, join(dir, 'spool'), 'svc/'));
    const client = new S3Client({ region: server.region, endpoint: server.endpoint, forcePathStyle: true, credentials: server.credentials });
    t.teardown(async () => {
      raw.close();
      client.destroy();
      await server.close();
    });
    return {
      raw,
      stored: async (key) => Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: server.bucket, Key: key }))).Body!.transformToByteArray()),
    };
  },
};

/** Bytes with the phrase planted at the start, across a frame boundary and at the end. */
function content(bytes: number): Buffer {
  const data = randomBytes(bytes);
  for (const at of [0, FRAME_BYTES - 10, bytes - PHRASE.length]) data.write(PHRASE, at, 'latin1');
  return data;
}

for (const [name, open] of Object.entries(harnesses)) {
  t.test(name, async (t) => {
    const databases = await sqliteDatabases(t);
    const dir = t.testdirName;
    const { raw, stored } = await open(t, dir);
    const sealed = new SealedBlobStore(raw, testSealer(sqliteStoreDb(databases.db)));
    t.teardown(async () => {
      sealed.close();
      await databases.close();
    });
    const blobs = sealed.forTenant(TENANT);
    const spool = (bytes: Buffer) => {
      const path = blobs.createUploadPath('test');
      writeFileSync(path, bytes);
      return path;
    };

    t.test('a result: sealed, read whole and as a stream, its size the plaintext', async (t) => {
      const plain = content(3 * FRAME_BYTES + 123);
      const { path, bytes } = await blobs.writeResult('job_a', { kind: 'final' }, plain);
      t.equal(bytes, plain.length, 'the plaintext size, what a download serves');
      const at = await stored(path);
      t.equal(at.subarray(0, 4).toString('latin1'), 'SSS1');
      t.notOk(at.includes(PHRASE), 'the phrase is not stored');
      t.ok((await blobs.readResult(path)).equals(plain));
      t.ok((await buffer(blobs.openResult(path))).equals(plain));
      const text = await blobs.writeResult('job_a', { kind: 'partial', revision: 1 }, JSON.stringify({ text: PHRASE }));
      t.notOk((await stored(text.path)).includes('"text"'), 'not JSON at rest');
      t.same(JSON.parse((await blobs.readResult(text.path)).toString('utf8')), { text: PHRASE });
    });

    t.test('a result opens only for its tenant and its own name', async (t) => {
      const { path } = await blobs.writeResult('job_b', { kind: 'final' }, PHRASE);
      await t.rejects(sealed.forTenant('tenant-other').readResult(path), SealingError, "another tenant's key does not open it");
      // The same bytes stored as another job's result (a swap) do not open there.
      const { path: other } = await raw.writeResult('job_c', { kind: 'final' }, await stored(path));
      await t.rejects(blobs.readResult(other), SealingError, 'moved onto another job');
      await t.rejects(buffer(blobs.openResult(other)), SealingError, 'moved onto another job, streamed');
      const missing = await raw.writeResult('job_z', { kind: 'final' }, 'x').then(async (r) => (await raw.delete(r.path), r.path));
      await t.rejects(buffer(blobs.openResult(missing)), { code: 'ENOENT' }, 'a missing result errors the stream with ENOENT');
    });

    t.test('a large result moved from the spool is sealed, and the plain file is gone', async (t) => {
      const plain = content(5 * FRAME_BYTES);
      const upload = spool(plain);
      const { path, bytes } = await blobs.moveToResult(upload, 'job_d', { kind: 'redacted_audio' });
      t.equal(bytes, plain.length);
      t.notOk(existsSync(upload), 'the plain spool file is removed');
      t.notOk((await stored(path)).includes(PHRASE));
      t.ok((await buffer(blobs.openResult(path))).equals(plain));
    });

    t.test('job audio: sealed on its way in, read by range and through the loopback source', async (t) => {
      const plain = content(4 * FRAME_BYTES + 777);
      const upload = spool(plain);
      const ref = await blobs.moveToJobAudio(upload, 'job_e');
      t.notOk(existsSync(upload), 'the plain spool file is removed');
      t.notOk((await stored(ref)).includes(PHRASE), 'the phrase is not stored');
      for (const [offset, length] of [
        [0, 12],
        [FRAME_BYTES - 10, 40],
        [1, 3 * FRAME_BYTES],
        [plain.length - 5, 100],
        [plain.length + 1, 10],
      ] as const) {
        t.ok((await blobs.readRange(ref, offset, length)).equals(plain.subarray(offset, offset + length)), `readRange(${offset}, ${length})`);
      }
      const source = await blobs.audioSource(ref, 60);
      if (source.kind !== 'url') throw new Error('a sealed blob is served by URL');
      t.match(source.url, /^http:\/\/127\.0\.0\.1:\d+\//);
      t.notOk(source.label.includes(source.url), 'the label does not carry the token');
      const whole = await fetch(source.url);
      t.equal(whole.status, 200);
      t.equal(whole.headers.get('accept-ranges'), 'bytes');
      t.ok(Buffer.from(await whole.arrayBuffer()).equals(plain));
      const ranged = await fetch(source.url, { headers: { range: `bytes=${FRAME_BYTES - 3}-${2 * FRAME_BYTES + 3}` } });
      t.equal(ranged.status, 206);
      t.equal(ranged.headers.get('content-range'), `bytes ${FRAME_BYTES - 3}-${2 * FRAME_BYTES + 3}/${plain.length}`);
      t.ok(Buffer.from(await ranged.arrayBuffer()).equals(plain.subarray(FRAME_BYTES - 3, 2 * FRAME_BYTES + 4)));
      const open = await fetch(source.url, { headers: { range: `bytes=${plain.length - 10}-` } });
      t.ok(Buffer.from(await open.arrayBuffer()).equals(plain.subarray(plain.length - 10)), 'an open-ended range, as ffmpeg seeks');
      t.equal((await fetch(source.url, { headers: { range: `bytes=${plain.length}-` } })).status, 416);
      t.equal((await fetch(source.url, { method: 'HEAD' })).headers.get('content-length'), String(plain.length));
      t.equal((await fetch(source.url.replace(/\/[^/]+$/, '/not-a-token'))).status, 404, 'an unknown token');
      await t.rejects(sealed.forTenant('tenant-other').readRange(ref, 0, 10), SealingError, "another tenant's key does not open it");
    });

    t.test('blobs stored before sealing are served as they are', async (t) => {
      const result = await raw.writeResult('job_f', { kind: 'final' }, JSON.stringify({ text: PHRASE }));
      t.same(JSON.parse((await blobs.readResult(result.path)).toString('utf8')), { text: PHRASE });
      t.same(JSON.parse((await buffer(blobs.openResult(result.path))).toString('utf8')), { text: PHRASE });
      const empty = await raw.writeResult('job_f', { kind: 'unredacted' }, '');
      t.equal((await blobs.readResult(empty.path)).length, 0, 'an empty plain result');
      const plain = content(FRAME_BYTES + 5);
      const ref = await raw.moveToJobAudio(spool(plain), 'job_g');
      t.ok((await blobs.readRange(ref, 10, 100)).equals(plain.subarray(10, 110)));
      const source = await blobs.audioSource(ref, 60);
      t.same(source, await raw.audioSource(ref, 60), "the store's own source: nothing to open");
    });

    t.test('an upload in the spool is never taken for a sealed blob', async (t) => {
      const looksSealed = Buffer.concat([Buffer.from('SSS1', 'latin1'), randomBytes(100)]);
      const upload = spool(looksSealed);
      t.ok((await blobs.readRange(upload, 0, 50)).equals(looksSealed.subarray(0, 50)));
      t.equal(
        createHash('sha256')
          .update(await blobs.readRange(upload, 0, 1000))
          .digest('hex'),
        createHash('sha256').update(looksSealed).digest('hex'),
      );
    });
  });
}
