// LocalBlobStore's own cases: its folder layout, absolute paths confined to its folders, and a data
// folder reached through a symlink. What every BlobStore does is in contract/blob-store-contract.ts.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import t, { type Test } from 'tap';

import { BlobPathError, type BlobStore } from '../../src/store/blob-store.js';
import { LocalBlobStore } from '../../src/store/local-blob-store.js';

function openStore(t: Test) {
  const dataDir = t.testdir();
  return { store: new LocalBlobStore(join(dataDir, 'blobs')), dataDir };
}

t.test('uploads go to uploads/, job audio to jobs/, results to results/', async (t) => {
  const { store } = openStore(t);
  const upload = store.createUploadPath('direct');
  t.equal(dirname(upload), join(store.root, 'uploads'));
  writeFileSync(upload, 'audio bytes');
  const audio = await store.moveToJobAudio(upload, 'job_123');
  t.equal(audio, join(store.root, 'jobs', 'job_123.audio'));
  t.equal(readFileSync(audio, 'utf8'), 'audio bytes');
  t.same(await store.audioSource(audio), { kind: 'file', path: audio }, 'ffmpeg reads the file itself');
  const { path } = await store.writeResult('job_123', { kind: 'partial', revision: 4 }, '{}');
  t.equal(path, join(store.root, 'results', 'job_123.partial-4'));
  t.equal((await store.writeResult('job_123', { kind: 'final' }, '{}')).path, join(store.root, 'results', 'job_123.result'));
  t.equal((await store.writeResult('job_123', { kind: 'final', revision: 2 }, '{}')).path, join(store.root, 'results', 'job_123.result-2'));
  t.equal((store as BlobStore).directUploads, undefined, 'presigned uploads go through the API');
});

t.test('absolute paths outside the folders are refused and left alone', async (t) => {
  const { store, dataDir } = openStore(t);
  const outside = join(dataDir, 'precious.txt');
  writeFileSync(outside, 'keep me');
  const nested = join(store.root, 'uploads', 'sub');
  mkdirSync(nested);
  const bad = [
    outside,
    join(store.root, 'uploads', '..', '..', 'precious.txt'),
    join(nested, 'direct-00000000-0000-0000-0000-000000000000.part'),
    join(store.root, 'results', '..', '..', 'precious.txt'),
  ];
  for (const path of bad) {
    await t.rejects(store.delete(path), BlobPathError, `delete ${path}`);
    await t.rejects(store.readRange(path, 0, 4), BlobPathError, `readRange ${path}`);
  }
  await t.rejects(store.moveToJobAudio(outside, 'job_2'), BlobPathError);
  t.equal(readFileSync(outside, 'utf8'), 'keep me');
});

t.test('a data folder reached through a symlink works the same', async (t) => {
  const dir = t.testdir({ real: {} });
  symlinkSync(join(dir, 'real'), join(dir, 'link'));
  const store = new LocalBlobStore(join(dir, 'link', 'blobs'));
  const upload = store.createUploadPath('direct');
  writeFileSync(upload, 'x');
  const audio = await store.moveToJobAudio(upload, 'job_1');
  t.ok(existsSync(join(dir, 'real', 'blobs', 'jobs', 'job_1.audio')));
  await store.delete(audio);
});

t.test('sweepOrphans removes a result stranded mid-write (its temporary file)', async (t) => {
  const { store } = openStore(t);
  const stranded = join(store.root, 'results', 'job_1.result.tmp-00000000-0000-0000-0000-000000000000');
  const strandedRevision = join(store.root, 'results', 'job_1.result-3.tmp-00000000-0000-0000-0000-000000000000');
  writeFileSync(stranded, '{"half":');
  writeFileSync(strandedRevision, '{"half":');
  const owners = { isReferenced: async () => false, isAwaitingUpload: async () => false };
  const removed = await store.sweepOrphans(owners, 0, new Date(Date.now() + 1000));
  t.equal(removed, 2);
  t.notOk(existsSync(stranded));
  t.notOk(existsSync(strandedRevision), 'a revision of a final result too');
});
