// An existing installation's plain blobs sealed in the background (issue 48, item 5), on SQLite with the
// local blob store and on PostgreSQL with an S3 bucket (s3rver), with the real stores: job audio and
// results written plain, the way the version before sealing wrote them, are sealed by the migration's
// passes (results where they are, audio into a fresh copy the row is pointed at), except what a worker
// holds, which the next walk takes once it is given back. Afterwards the planted bytes are nowhere in
// the data folder or the bucket, every job reads its audio and results as they were, a walk resumes
// from where a batch stopped, and running it again changes nothing. /metrics' count is checked on the way.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import t, { type Test } from 'tap';

import { PlainBlobWalk } from '../../src/service/plain-blob-walk.js';
import { PlainContentMigration } from '../../src/service/plain-content-migration.js';
import type { BlobStore } from '../../src/store/blob-store.js';
import { LocalBlobStore } from '../../src/store/local-blob-store.js';
import { openStores, type Stores } from '../../src/store/open-stores.js';
import { S3BlobStore } from '../../src/store/s3/s3-blob-store.js';
import { SealedBlobStore } from '../../src/store/sealed-blob-store.js';
import { sealedStreamKeyVersion } from '../../src/store/sealed-stream.js';
import { sharedPostgres } from '../helpers/postgres-server.js';
import { s3StoreSettings, type S3TestServer, startS3Server } from '../helpers/s3-server.js';

const MASTER_KEY = randomBytes(32);
const PHRASE = 'heron-amiodarone-legacy-result';
/** Varied bytes, as audio samples are: found verbatim only where the audio lies plain. */
const AUDIO = Buffer.concat([Buffer.from('RIFF-legacy-audio-'), randomBytes(200_000)]);
const PATTERN = AUDIO.subarray(100_000, 100_064);

interface Harness {
  open(): Promise<Stores>;
  dataDir: string;
  /** The blob store beneath the sealing: what the version before sealing wrote through. */
  raw: BlobStore;
  s3: S3TestServer | null;
}

const harnesses: Record<string, (t: Test) => Promise<Harness>> = {
  'SQLite, local disk': async (t) => {
    const dataDir = join(t.testdir(), 'data');
    return {
      dataDir,
      raw: new LocalBlobStore(join(dataDir, 'blobs')),
      s3: null,
      open: () => openStores({ instanceId: 'test', dataDir, databaseUrl: null, webhookMasterKey: () => MASTER_KEY }),
    };
  },
  'PostgreSQL, S3': async (t) => {
    const dataDir = join(t.testdir(), 'data');
    const url = await (await sharedPostgres()).createDatabase();
    const s3 = await startS3Server();
    t.teardown(() => s3.close());
    const raw = new S3BlobStore(s3StoreSettings(s3, join(dataDir, 'blobs', 'uploads')));
    t.teardown(() => raw.close());
    return { dataDir, raw, s3, open: () => openStores({ instanceId: 'test', dataDir, databaseUrl: url, webhookMasterKey: () => MASTER_KEY }) };
  },
};

/** Every file under the data folder and every object in the bucket, with its bytes. */
async function everyBlob(h: Harness): Promise<Array<{ name: string; bytes: Buffer }>> {
  const entries = await readdir(h.dataDir, { recursive: true, withFileTypes: true });
  const files = await Promise.all(
    entries.filter((entry) => entry.isFile()).map(async (entry) => ({ name: entry.name, bytes: await readFile(join(entry.parentPath, entry.name)) })),
  );
  if (!h.s3) return files;
  const { s3 } = h;
  const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: s3.credentials });
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
    const objects = await Promise.all(
      (listed.Contents ?? []).map(async ({ Key }) => ({
        name: Key!,
        bytes: Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: Key! }))).Body!.transformToByteArray()),
      })),
    );
    return [...files, ...objects];
  } finally {
    client.destroy();
  }
}

/** The names of the blobs holding the planted audio or result phrase plain. */
async function plainHolders(h: Harness): Promise<string[]> {
  return (await everyBlob(h)).filter(({ bytes }) => bytes.includes(PATTERN) || bytes.includes(PHRASE)).map(({ name }) => name);
}

for (const [name, harness] of Object.entries(harnesses)) {
  t.test(name, async (t) => {
    const h = await harness(t);
    const stores = await h.open();
    t.teardown(() => stores.close());
    const sealed = new SealedBlobStore(h.raw, stores.sealer);
    t.teardown(() => sealed.close());
    const nowMs = 1_000_000;

    // What the version before sealing left: plain audio and results, named by job rows.
    const plainAudio = async (seed: string) => {
      const upload = h.raw.createUploadPath('legacy');
      await writeFile(upload, AUDIO);
      return h.raw.moveToJobAudio(upload, seed);
    };
    const job = async (tenant: string, seed: string) =>
      stores.jobs.create({
        tenant,
        keyId: 'key_legacy',
        status: 'accepted',
        request: { response_format: 'json' },
        audioPath: await plainAudio(`legacy-${seed}`),
        audioSeconds: 10,
        webhookUrl: null,
      });
    // Running, and held by a worker between two chunks: its audio and its provisional result.
    const running = await job('clinic-a', 'running');
    t.equal((await stores.jobs.claimNext('w-1', nowMs, 600_000))?.id, running.id);
    const partial = await h.raw.writeResult(running.id, { kind: 'partial', revision: 1 }, JSON.stringify({ text: `${PHRASE} so far` }));
    await stores.jobs.commitChunk(running.id, 'w-1', { progress: { text: 'x' }, completedAudioSeconds: 5, audioSeconds: 10, partialPath: partial.path }, nowMs);
    t.equal((await stores.jobs.claimNext('w-1', nowMs, 600_000))?.id, running.id, 'the worker holds it again');
    // Succeeded: its final and unredacted results (its audio went when it ended).
    const done = await job('clinic-b', 'done');
    t.equal((await stores.jobs.claimNext('w-2', nowMs, 600_000))?.id, done.id);
    const final = await h.raw.writeResult(done.id, { kind: 'final' }, JSON.stringify({ text: PHRASE }));
    const unredacted = await h.raw.writeResult(done.id, { kind: 'unredacted' }, JSON.stringify({ text: `${PHRASE} unredacted` }));
    const result = { resultPath: final.path, resultBytes: final.bytes, contentType: 'application/json', unredactedPath: unredacted.path };
    t.ok(await stores.jobs.succeed(done.id, 'w-2', result, { resultExpiresAtMs: nowMs + 3_600_000, tombstoneUntilMs: nowMs + 7_200_000 }, nowMs));
    await h.raw.delete(done.audioPath!);
    // Queued: its audio.
    const queued = await job('clinic-a', 'queued');

    t.equal((await plainHolders(h)).length, 5, 'the planted bytes lie plain in the data folder or the bucket');
    const plainBlobs = stores.plainBlobs(sealed);
    t.equal(await plainBlobs.blobsAfter(null), 5, 'five blobs named by job rows');

    // A reader already reading the plain result when it is replaced: it reads the plain form rightly.
    const early = sealed.forTenant('clinic-b').openResult(unredacted.path);
    await once(early, 'readable');

    // A walk resumes from where a batch stopped.
    const first = await plainBlobs.sealBatch(null, 1);
    t.not(first.next, null, 'one job looked at, more after it');
    const rest = await plainBlobs.blobsAfter(first.next);
    t.ok(rest >= 1 && rest < 5, `the blobs of the jobs after it (${rest}) are what the walk has left to look at`);
    t.same((await plainBlobs.sealBatch(first.next, 100)).next, null, 'the next batch goes on from there to the end');

    const migration = new PlainContentMigration(stores.plainContent, new PlainBlobWalk(plainBlobs));
    await migration.pass();
    t.equal(Buffer.concat(await early.toArray()).toString('utf8'), JSON.stringify({ text: `${PHRASE} unredacted` }), 'a reader from before reads on');
    t.equal(migration.plainLeft()?.blobs, 2, "the held job's audio and provisional result wait for the worker");
    t.same((await plainHolders(h)).length, 2, 'only those two are still plain');

    t.ok(await stores.jobs.releaseLease(running.id, 'w-1', nowMs), 'the worker gives the job back');
    await migration.pass();
    t.equal(migration.plainLeft()?.blobs, 0, 'nothing plain left');
    t.same(await plainHolders(h), [], 'the planted bytes are nowhere in the data folder or the bucket');

    // Every job reads its audio and results as they were.
    for (const id of [running.id, queued.id]) {
      const row = (await stores.jobs.getById(id))!;
      t.not(row.audioPath, id === running.id ? running.audioPath : queued.audioPath, 'the row names the sealed copy of its audio');
      t.equal(sealedStreamKeyVersion(await h.raw.readRange(row.audioPath!, 0, 16)), 1, 'sealed under the data key');
      t.ok((await sealed.forTenant(row.tenant).readRange(row.audioPath!, 0, AUDIO.length)).equals(AUDIO), 'its audio reads as it was');
    }
    t.notOk(await h.raw.exists(queued.audioPath!), 'the plain audio is deleted');
    const readResult = async (tenant: string, ref: string) => (await sealed.forTenant(tenant).readResult(ref)).toString('utf8');
    t.equal(await readResult('clinic-b', final.path), JSON.stringify({ text: PHRASE }), 'a final result, sealed where it was');
    t.equal(await readResult('clinic-b', unredacted.path), JSON.stringify({ text: `${PHRASE} unredacted` }));
    t.equal(await readResult('clinic-a', partial.path), JSON.stringify({ text: `${PHRASE} so far` }));
    const streamed = Buffer.concat(await sealed.forTenant('clinic-b').openResult(final.path).toArray());
    t.equal(streamed.toString('utf8'), JSON.stringify({ text: PHRASE }), 'and streams so');
    await t.rejects(sealed.forTenant('clinic-a').readResult(final.path), /does not open/, "under another tenant's key it opens nowhere");

    // Idempotent: another walk finds nothing, and changes no byte.
    // The blobs' bytes (the database files aside: a read may touch them).
    const blobBytes = async () =>
      (await everyBlob(h))
        .filter(({ name }) => !name.startsWith('svc-stt.db'))
        .map(({ name, bytes }) => `${name}:${bytes.toString('base64')}`)
        .sort();
    const before = await blobBytes();
    t.same(await plainBlobs.sealBatch(null, 100), { next: null, sealed: 0, left: 0 }, 'a second walk seals nothing');
    for (let i = 0; i < 10; i++) await migration.pass();
    t.equal(migration.plainLeft()?.blobs, 0);
    t.same(await blobBytes(), before, 'every blob as it was');
  });
}
