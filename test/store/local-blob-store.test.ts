// LocalBlobStore: upload paths, durable moves into job storage, path confinement, orphan sweep.
import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { BlobPathError } from '../../src/store/blob-store.js';
import { LocalBlobStore } from '../../src/store/local-blob-store.js';

function openStore(t: Test) {
  const dataDir = t.testdir();
  return { store: new LocalBlobStore(join(dataDir, 'blobs')), dataDir };
}

const age = (path: string, ms: number) => {
  const when = new Date(Date.now() - ms);
  utimesSync(path, when, when);
};

t.test('upload paths are fresh files inside uploads/', async (t) => {
  const { store } = openStore(t);
  const a = store.createUploadPath('direct');
  const b = store.createUploadPath('direct');
  t.not(a, b);
  t.equal(dirname(a), join(store.root, 'uploads'));
  t.match(a, /\/direct-[0-9a-f-]{36}\.part$/);
  t.notOk(existsSync(a), 'nothing is created until the body streams in');
  for (const prefix of ['', '../x', 'a/b', 'UPPER', 'x'.repeat(33), 'dot.dot']) {
    t.throws(() => store.createUploadPath(prefix), BlobPathError, `prefix ${JSON.stringify(prefix)}`);
  }
});

t.test('moveToJobAudio renames the upload into jobs/ and never overwrites', async (t) => {
  const { store } = openStore(t);
  const upload = store.createUploadPath('direct');
  writeFileSync(upload, 'audio bytes');
  const audio = await store.moveToJobAudio(upload, 'job_123');
  t.equal(audio, join(store.root, 'jobs', 'job_123.audio'));
  t.equal(readFileSync(audio, 'utf8'), 'audio bytes');
  t.notOk(existsSync(upload));
  t.equal(await store.exists(audio), true);
  t.equal(await store.exists(upload), false);

  const second = store.createUploadPath('direct');
  writeFileSync(second, 'other audio');
  await t.rejects(store.moveToJobAudio(second, 'job_123'), { code: 'EEXIST' });
  t.equal(readFileSync(audio, 'utf8'), 'audio bytes', 'the first job keeps its audio');
  t.ok(existsSync(second), 'the refused upload is left for the caller to delete');
  await t.rejects(store.moveToJobAudio(store.createUploadPath('direct'), 'job_404'), { code: 'ENOENT' });
});

t.test('paths outside the store are refused and left alone', async (t) => {
  const { store, dataDir } = openStore(t);
  const outside = join(dataDir, 'precious.txt');
  writeFileSync(outside, 'keep me');
  const nested = join(store.root, 'uploads', 'sub');
  mkdirSync(nested);
  const upload = store.createUploadPath('direct');
  writeFileSync(upload, 'x');
  const audio = await store.moveToJobAudio(upload, 'job_1');
  const bad = [
    outside,
    '/etc/passwd',
    join(store.root, 'uploads', '..', '..', 'precious.txt'),
    join(store.root, 'svc-stt.db'),
    join(nested, 'direct-00000000-0000-0000-0000-000000000000.part'),
    join(store.root, 'uploads', 'notes.txt'),
    'relative/path.part',
  ];
  for (const path of bad) {
    await t.rejects(store.delete(path), BlobPathError, `delete ${path}`);
    await t.rejects(store.exists(path), BlobPathError, `exists ${path}`);
  }
  await t.rejects(store.moveToJobAudio(outside, 'job_2'), BlobPathError);
  await t.rejects(store.moveToJobAudio(audio, 'job_2'), BlobPathError, 'job audio is not an upload');
  const upload2 = store.createUploadPath('direct');
  writeFileSync(upload2, 'y');
  for (const jobId of ['../escape', 'a/b', '', '.', 'x'.repeat(129)]) {
    await t.rejects(store.moveToJobAudio(upload2, jobId), BlobPathError, `job id ${JSON.stringify(jobId)}`);
  }
  t.equal(readFileSync(outside, 'utf8'), 'keep me');
  t.ok(existsSync(upload2));
});

t.test('delete removes uploads and job audio; a missing file is fine', async (t) => {
  const { store } = openStore(t);
  const upload = store.createUploadPath('direct');
  writeFileSync(upload, 'x');
  await store.delete(upload);
  t.notOk(existsSync(upload));
  await store.delete(upload);
  const second = store.createUploadPath('job');
  writeFileSync(second, 'y');
  const audio = await store.moveToJobAudio(second, 'job_9');
  await store.delete(audio);
  t.notOk(existsSync(audio));
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

t.test('sweepOrphans: old uploads and unreferenced old job audio go; the rest stays', async (t) => {
  const { store } = openStore(t);
  const HOUR = 3_600_000;
  const staleUpload = store.createUploadPath('direct');
  const liveUpload = store.createUploadPath('direct');
  writeFileSync(staleUpload, 'x');
  writeFileSync(liveUpload, 'x');
  const make = async (jobId: string) => {
    const upload = store.createUploadPath('direct');
    writeFileSync(upload, jobId);
    return store.moveToJobAudio(upload, jobId);
  };
  const referenced = await make('job_referenced');
  const orphan = await make('job_orphan');
  const freshOrphan = await make('job_fresh');
  const foreign = join(store.root, 'uploads', 'README');
  writeFileSync(foreign, 'an operator note');
  for (const path of [staleUpload, referenced, orphan, foreign]) age(path, 2 * HOUR);

  const asked: string[] = [];
  const removed = await store.sweepOrphans(async (path) => {
    asked.push(path);
    return path === referenced;
  }, HOUR);
  t.equal(removed, 2);
  t.notOk(existsSync(staleUpload), 'upload left by a crash');
  t.notOk(existsSync(orphan), 'audio no job references');
  t.ok(existsSync(liveUpload), 'an upload still streaming');
  t.ok(existsSync(referenced), 'audio of a job');
  t.ok(existsSync(freshOrphan), 'audio whose job row may be being written');
  t.ok(existsSync(foreign), 'files the store did not create');
  t.same(asked.sort(), [orphan, referenced].sort(), 'only old job audio is looked up');
  t.equal(await store.sweepOrphans(async (path) => path === referenced, HOUR), 0, 'nothing left to sweep');
});
