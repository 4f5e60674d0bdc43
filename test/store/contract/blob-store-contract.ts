// The BlobStore contract, run against every implementation (test/store/blob-store.test.ts): request
// bodies in the local spool, durable moves into job audio that never overwrite, results replaced
// whole, ranges, where ffmpeg reads audio from, confinement of refs, the readiness probe, the
// orphan sweep and the start's spool sweep. Each case gets a fresh, empty store from the implementation's harness.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Readable } from 'node:stream';

import type { Test } from 'tap';

import { type BlobOwners, BlobPathError, type BlobStore, BlobStoreUnavailableError } from '../../../src/store/blob-store.js';
import { failureOf, refuses } from './refusal.js';

export interface BlobStoreHarness {
  store: BlobStore;
  /** Makes a blob (an upload path or a ref) look `ms` older than now, as time would. */
  age(ref: string, ms: number): Promise<void>;
  /** Refs of this store's own kind (paths, keys) that name something outside its areas. */
  foreignRefs: readonly string[];
  /** Puts a blob the store did not create among its job audio; returns whether it is still there. */
  plantForeign(): Promise<() => Promise<boolean>>;
  /** Makes the storage unusable (a folder gone, the server down). */
  breakStorage(): Promise<void>;
  close(): Promise<void>;
}

export type MakeBlobStore = (t: Test) => Promise<BlobStoreHarness>;

const HOUR = 3_600_000;
const UPLOAD_PATH = /\/direct-[0-9a-f-]{36}\.part$/;

export function blobStoreContract(t: Test, name: string, make: MakeBlobStore): void {
  const open = async (t: Test): Promise<BlobStoreHarness> => {
    const harness = await make(t);
    t.teardown(() => harness.close());
    return harness;
  };
  /** An upload with `bytes`, kept as job audio of `jobId`. */
  const jobAudio = async (store: BlobStore, jobId: string, bytes: string | Buffer): Promise<string> => {
    const upload = store.createUploadPath('direct');
    writeFileSync(upload, bytes);
    return store.moveToJobAudio(upload, jobId);
  };
  const refusesPath = (t: Test, call: () => Promise<unknown>, what: string) => refuses(t, call, BlobPathError, {}, what);

  t.test(`${name}: BlobStore contract`, async (t) => {
    t.test('upload paths are fresh local files; nothing exists until the body streams in', async (t) => {
      const { store } = await open(t);
      const a = store.createUploadPath('direct');
      const b = store.createUploadPath('direct');
      t.not(a, b);
      t.ok(isAbsolute(a), 'a local path');
      t.match(a, UPLOAD_PATH);
      t.notOk(existsSync(a), 'nothing is created until the body streams in');
      t.equal(await store.exists(a), false);
      for (const prefix of ['', '../x', 'a/b', 'UPPER', 'x'.repeat(33), 'dot.dot']) {
        t.throws(() => store.createUploadPath(prefix), BlobPathError, `prefix ${JSON.stringify(prefix)}`);
      }
      await writeStream(store, a, 'body bytes');
      t.equal(readFileSync(a, 'utf8'), 'body bytes');
      t.equal(await store.exists(a), true);
      const again = store.createUploadStream(a);
      t.match(await streamFailure(again), { code: 'EEXIST' }, 'an upload stream never reopens a used path');
      t.throws(() => store.createUploadStream('/tmp/elsewhere.part'), BlobPathError);
    });

    t.test('moveToJobAudio keeps the upload as job audio and never overwrites', async (t) => {
      const { store } = await open(t);
      const upload = store.createUploadPath('direct');
      writeFileSync(upload, 'audio bytes');
      const audio = await store.moveToJobAudio(upload, 'job_123');
      t.type(audio, 'string');
      t.equal((await store.readRange(audio, 0, 100)).toString(), 'audio bytes');
      t.notOk(existsSync(upload), 'the upload is gone');
      t.equal(await store.exists(audio), true);
      t.equal(await store.exists(upload), false);

      const second = store.createUploadPath('direct');
      writeFileSync(second, 'other audio');
      await t.rejects(store.moveToJobAudio(second, 'job_123'), { code: 'EEXIST' });
      t.equal((await store.readRange(audio, 0, 100)).toString(), 'audio bytes', 'the first job keeps its audio');
      t.ok(existsSync(second), 'the refused upload is left for the caller to delete');
      await t.rejects(store.moveToJobAudio(store.createUploadPath('direct'), 'job_404'), { code: 'ENOENT' });
      t.equal(await store.exists(await jobAudio(store, 'job_404', 'x')), true, 'a failed move leaves the job id free');
    });

    t.test('refs the store did not hand out are refused and left alone', async (t) => {
      const { store, foreignRefs, plantForeign } = await open(t);
      const stillThere = await plantForeign();
      const audio = await jobAudio(store, 'job_1', 'x');
      const { path: result } = await store.writeResult('job_1', { kind: 'final' }, '{}');
      const bad = ['/etc/passwd', 'relative/path.part', '../x', '', 'jobs/job_1.audio/../../x', ...foreignRefs];
      for (const ref of bad) {
        await refusesPath(t, () => store.delete(ref), `delete ${ref}`);
        await refusesPath(t, () => store.exists(ref), `exists ${ref}`);
        await refusesPath(t, () => store.readRange(ref, 0, 10), `readRange ${ref}`);
        await refusesPath(t, () => store.readResult(ref), `readResult ${ref}`);
        await refusesPath(t, () => store.audioSource(ref), `audioSource ${ref}`);
        t.throws(() => store.openResult(ref), BlobPathError, `openResult ${ref}`);
        await refusesPath(t, () => store.moveToJobAudio(ref, 'job_2'), `moveToJobAudio ${ref}`);
      }
      await refusesPath(t, () => store.moveToJobAudio(audio, 'job_2'), 'job audio is not an upload');
      await refusesPath(t, () => store.audioSource(result), 'a result is not audio');
      await refusesPath(t, () => store.readResult(audio), 'job audio is not a result');
      t.throws(() => store.openResult(audio), BlobPathError);
      const upload = store.createUploadPath('direct');
      writeFileSync(upload, 'y');
      for (const jobId of ['../escape', 'a/b', '', '.', 'x'.repeat(129), 'job.1']) {
        await refusesPath(t, () => store.moveToJobAudio(upload, jobId), `job id ${JSON.stringify(jobId)}`);
        await refusesPath(t, () => store.writeResult(jobId, { kind: 'final' }, '{}'), `result job id ${JSON.stringify(jobId)}`);
      }
      for (const revision of [-1, 1.5, 1e9, Number.NaN]) {
        await refusesPath(t, () => store.writeResult('job_1', { kind: 'partial', revision }, '{}'), `revision ${revision}`);
        await refusesPath(t, () => store.writeResult('job_1', { kind: 'final', revision }, '{}'), `final revision ${revision}`);
      }
      t.ok(existsSync(upload));
      t.equal(await stillThere(), true, 'a blob the store did not create is untouched');
    });

    t.test('delete removes uploads, job audio and results; a missing one is fine', async (t) => {
      const { store } = await open(t);
      const upload = store.createUploadPath('direct');
      writeFileSync(upload, 'x');
      await store.delete(upload);
      t.notOk(existsSync(upload));
      await store.delete(upload);
      const audio = await jobAudio(store, 'job_9', 'y');
      await store.delete(audio);
      t.equal(await store.exists(audio), false);
      await store.delete(audio);
      const { path: result } = await store.writeResult('job_9', { kind: 'partial', revision: 2 }, '{}');
      await store.delete(result);
      t.equal(await store.exists(result), false);
    });

    t.test('results are stored whole, replaced whole, read and streamed back', async (t) => {
      const { store } = await open(t);
      const text = JSON.stringify({ text: 'Blutdruck 140/90 – ärztlich' });
      const partial = await store.writeResult('job_r', { kind: 'partial', revision: 1 }, text);
      t.equal(partial.bytes, Buffer.byteLength(text), 'bytes, not characters');
      t.equal((await store.readResult(partial.path)).toString('utf8'), text);
      const next = await store.writeResult('job_r', { kind: 'partial', revision: 2 }, 'second');
      t.not(next.path, partial.path, 'each revision has its own ref');
      const final = await store.writeResult('job_r', { kind: 'final' }, Buffer.from('first'));
      const replaced = await store.writeResult('job_r', { kind: 'final' }, new Uint8Array(Buffer.from('replaced')));
      t.equal(replaced.path, final.path, 'the final result has one ref');
      t.equal((await store.readResult(final.path)).toString(), 'replaced');
      t.equal((await readAll(store.openResult(final.path))).toString(), 'replaced');
      const big = Buffer.alloc(3 * 1024 * 1024, 7);
      const stored = await store.writeResult('job_big', { kind: 'final' }, big);
      t.equal(stored.bytes, big.length);
      t.same(await readAll(store.openResult(stored.path)), big, 'a stream of several MB, in order');
      t.equal(await store.exists(final.path), true);

      await store.delete(final.path);
      await t.rejects(store.readResult(final.path), { code: 'ENOENT' }, 'a missing result reads as ENOENT');
      t.match(await streamFailure(store.openResult(final.path)), { code: 'ENOENT' }, 'and streams as ENOENT');
    });

    t.test('a final result may take a revision: its own ref beside the first one, read, streamed, deleted', async (t) => {
      const { store } = await open(t);
      const first = await store.writeResult('job_v', { kind: 'final' }, 'undecorated');
      const revised = await store.writeResult('job_v', { kind: 'final', revision: 1 }, 'decorated');
      const zero = await store.writeResult('job_v', { kind: 'final', revision: 0 }, 'zero');
      const last = await store.writeResult('job_v', { kind: 'final', revision: 999_999_999 }, 'last');
      t.equal(revised.bytes, 9);
      t.match(first.path, /job_v\.result$/, 'no revision: the name of old');
      t.match(revised.path, /job_v\.result-1$/);
      t.match(zero.path, /job_v\.result-0$/);
      t.match(last.path, /job_v\.result-999999999$/);
      t.equal(new Set([first.path, revised.path, zero.path, last.path]).size, 4, 'each revision has its own ref');
      const partial = await store.writeResult('job_v', { kind: 'partial', revision: 1 }, 'partial');
      t.not(partial.path, revised.path, 'a final revision is not a provisional one');
      t.equal((await store.readResult(first.path)).toString(), 'undecorated', 'the first result is not touched');
      t.equal((await store.readResult(revised.path)).toString(), 'decorated');
      t.equal((await readAll(store.openResult(revised.path))).toString(), 'decorated');
      t.equal((await store.readRange(revised.path, 2, 3)).toString(), 'cor');
      t.equal((await store.readResult(last.path)).toString(), 'last');
      t.equal((await store.writeResult('job_v', { kind: 'final', revision: 1 }, 'again')).path, revised.path, 'replaced whole at its ref');
      t.equal((await store.readResult(revised.path)).toString(), 'again');
      await refusesPath(t, () => store.audioSource(revised.path), 'a revised result is not audio');
      for (const bad of [`${first.path}-`, `${first.path}-x`, `${first.path}--1`, `${first.path}-1234567890`, `${revised.path}.5`, `${first.path}-1.audio`]) {
        await refusesPath(t, () => store.readResult(bad), `readResult ${bad}`);
        await refusesPath(t, () => store.delete(bad), `delete ${bad}`);
      }
      await store.delete(revised.path);
      t.equal(await store.exists(revised.path), false);
      await t.rejects(store.readResult(revised.path), { code: 'ENOENT' });
      t.equal(await store.exists(first.path), true, 'the other results stay');
      t.equal(await store.exists(zero.path), true);
    });

    t.test('readRange reads bytes at an offset, fewer at the end, none past it', async (t) => {
      const { store } = await open(t);
      const bytes = Buffer.from('0123456789');
      const audio = await jobAudio(store, 'job_range', bytes);
      t.equal((await store.readRange(audio, 0, 4)).toString(), '0123');
      t.equal((await store.readRange(audio, 0, 1)).toString(), '0', 'one byte');
      t.equal((await store.readRange(audio, 3, 4)).toString(), '3456');
      t.equal((await store.readRange(audio, 8, 4096)).toString(), '89', 'fewer at the end');
      t.equal((await store.readRange(audio, 10, 4)).length, 0, 'none at the end');
      t.equal((await store.readRange(audio, 50, 4)).length, 0, 'none past it');
      t.equal((await store.readRange(audio, 2, 0)).length, 0, 'nothing asked');
      const upload = store.createUploadPath('direct');
      writeFileSync(upload, 'spooled');
      t.equal((await store.readRange(upload, 1, 3)).toString(), 'poo', 'an upload still in the spool');
      const { path: result } = await store.writeResult('job_range', { kind: 'final' }, 'result');
      t.equal((await store.readRange(result, 0, 3)).toString(), 'res');
      for (const [offset, length] of [
        [-1, 4],
        [0, -1],
        [0.5, 4],
        [0, Number.POSITIVE_INFINITY],
      ]) {
        await t.rejects(store.readRange(audio, offset, length), RangeError, `range ${offset}+${length}`);
      }
      await store.delete(audio);
      await t.rejects(store.readRange(audio, 0, 4), { code: 'ENOENT' }, 'a missing blob reads as ENOENT');
    });

    t.test('audioSource says where ffmpeg reads job audio, without secrets in its label', async (t) => {
      const { store } = await open(t);
      const bytes = Buffer.from('RIFF....WAVEfmt and more bytes');
      const audio = await jobAudio(store, 'job_src', bytes);
      const source = await store.audioSource(audio);
      if (source.kind === 'file') {
        t.same(readFileSync(source.path), bytes, 'a local file with the audio');
      } else {
        t.match(source.url, /^https?:\/\//);
        t.notMatch(source.label, /[?&]|Signature|Credential/i, 'the label is safe to log');
        const whole = await fetch(source.url);
        t.equal(whole.status, 200);
        t.same(Buffer.from(await whole.arrayBuffer()), bytes, 'the URL serves the audio');
        const part = await fetch(source.url, { headers: { range: 'bytes=4-7' } });
        t.equal(part.status, 206, 'and answers Range requests (ffmpeg seeks with them)');
        t.equal(Buffer.from(await part.arrayBuffer()).toString(), '....');
      }
    });

    t.test('ping: the storage serves; when it cannot, BlobStoreUnavailableError with the cause', async (t) => {
      const harness = await open(t);
      await harness.store.ping();
      await harness.breakStorage();
      const error = await failureOf(() => harness.store.ping());
      t.ok(error instanceof BlobStoreUnavailableError, 'a BlobStoreUnavailableError');
      t.ok((error as Error).cause, 'with its cause');
    });

    t.test('sweepOrphans: old uploads and unreferenced old job audio and results go; the rest stays', async (t) => {
      const { store, age, plantForeign } = await open(t);
      const staleUpload = store.createUploadPath('direct');
      const liveUpload = store.createUploadPath('direct');
      writeFileSync(staleUpload, 'x');
      writeFileSync(liveUpload, 'x');
      const referenced = await jobAudio(store, 'job_referenced', 'a');
      const orphan = await jobAudio(store, 'job_orphan', 'b');
      const freshOrphan = await jobAudio(store, 'job_fresh', 'c');
      const { path: keptResult } = await store.writeResult('job_referenced', { kind: 'final' }, '{}');
      const { path: lostResult } = await store.writeResult('job_lost', { kind: 'partial', revision: 3 }, '{}');
      const foreign = await plantForeign();
      for (const ref of [staleUpload, referenced, orphan, keptResult, lostResult]) await age(ref, 2 * HOUR);

      const asked: string[] = [];
      const owners: BlobOwners = {
        isReferenced: async (ref) => {
          asked.push(ref);
          return ref === referenced || ref === keptResult;
        },
        isAwaitingUpload: async () => true,
      };
      t.equal(await store.sweepOrphans(owners, HOUR), 3);
      t.notOk(existsSync(staleUpload), 'upload left by a crash');
      t.equal(await store.exists(orphan), false, 'audio no job references');
      t.equal(await store.exists(lostResult), false, 'a result no job references');
      t.ok(existsSync(liveUpload), 'an upload still streaming');
      t.equal(await store.exists(referenced), true, 'audio of a job');
      t.equal(await store.exists(keptResult), true, 'a result of a job');
      t.equal(await store.exists(freshOrphan), true, 'audio whose job row may be being written');
      t.equal(await foreign(), true, 'blobs the store did not create');
      t.same(asked.sort(), [orphan, referenced, keptResult, lostResult].sort(), 'only old job audio and results are looked up');
      t.equal(await store.sweepOrphans(owners, HOUR), 0, 'nothing left to sweep');
      t.equal(await store.sweepOrphans(owners, 0, new Date(Date.now() + 1000)), 2, 'age 0: every unowned blob goes');
      t.equal(await store.exists(freshOrphan), false);
      t.notOk(existsSync(liveUpload));
      t.equal(await store.exists(referenced), true);
    });

    t.test('sweepSpool: every spooled body goes, however fresh; job audio, results and foreign files stay', async (t) => {
      const { store, plantForeign } = await open(t);
      const cut = store.createUploadPath('direct');
      const sealed = store.createUploadPath('presigned');
      writeFileSync(cut, 'half a body');
      writeFileSync(sealed, 'half a sealed body');
      const orphan = await jobAudio(store, 'job_orphan', 'b');
      const { path: result } = await store.writeResult('job_lost', { kind: 'final' }, '{}');
      const foreign = await plantForeign();
      t.equal(await store.sweepSpool(), 2, 'both bodies a crash cut off');
      t.notOk(existsSync(cut));
      t.notOk(existsSync(sealed));
      t.equal(await store.exists(orphan), true, "job audio is the orphan sweep's, with its age guard");
      t.equal(await store.exists(result), true);
      t.equal(await foreign(), true);
      t.equal(await store.sweepSpool(), 0, 'nothing left');
    });

    t.test('sweepOrphans: an unreferenced old result revision goes like any result; a referenced one stays', async (t) => {
      const { store, age } = await open(t);
      const { path: replaced } = await store.writeResult('job_dec', { kind: 'final' }, 'undecorated');
      const { path: served } = await store.writeResult('job_dec', { kind: 'final', revision: 1 }, 'decorated');
      const { path: abandoned } = await store.writeResult('job_dec', { kind: 'final', revision: 2 }, 'a crashed decoration');
      const { path: fresh } = await store.writeResult('job_new', { kind: 'final', revision: 1 }, 'being recorded');
      for (const ref of [replaced, served, abandoned]) await age(ref, 2 * HOUR);
      const asked: string[] = [];
      const owners: BlobOwners = {
        isReferenced: async (ref) => {
          asked.push(ref);
          return ref === served;
        },
        isAwaitingUpload: async () => false,
      };
      t.equal(await store.sweepOrphans(owners, HOUR), 2);
      t.equal(await store.exists(replaced), false, 'the result a decoration replaced');
      t.equal(await store.exists(abandoned), false, 'a revision no job references');
      t.equal(await store.exists(served), true, 'the revision the job serves');
      t.equal(await store.exists(fresh), true, 'a revision whose job row may be being written');
      t.same(asked.sort(), [replaced, served, abandoned].sort(), 'old revisions are looked up like any result');
    });

    t.test('an unredacted transcript is a result: final and provisional revisions, each at its own ref', async (t) => {
      const { store } = await open(t);
      const final = await store.writeResult('job_un', { kind: 'unredacted' }, '{"text":"final"}');
      const provisional = await store.writeResult('job_un', { kind: 'unredacted', revision: 2 }, '{"text":"so far"}');
      t.match(final.path, /job_un\.unredacted$/);
      t.match(provisional.path, /job_un\.unredacted-2$/);
      t.equal((await store.readResult(final.path)).toString(), '{"text":"final"}');
      t.equal((await store.readResult(provisional.path)).toString(), '{"text":"so far"}');
      await refusesPath(t, () => store.readResult(`${final.path}-x`), 'not a revision');
      await store.delete(provisional.path);
      t.equal(await store.exists(provisional.path), false);
    });

    t.test('moveToResult makes a spooled file a result: replaced whole, read, streamed, swept and deleted like one', async (t) => {
      const { store, age } = await open(t);
      const upload = store.createUploadPath('redacted');
      writeFileSync(upload, 'RIFF silenced audio');
      const copy = await store.moveToResult(upload, 'job_red', { kind: 'redacted_audio' });
      t.match(copy.path, /job_red\.redacted-audio$/);
      t.equal(copy.bytes, 19);
      t.notOk(existsSync(upload), 'the spooled file is gone');
      t.equal((await readAll(store.openResult(copy.path))).toString(), 'RIFF silenced audio');
      t.equal((await store.readRange(copy.path, 5, 8)).toString(), 'silenced');
      const again = store.createUploadPath('redacted');
      writeFileSync(again, 'RIFF again');
      t.equal((await store.moveToResult(again, 'job_red', { kind: 'redacted_audio' })).path, copy.path, 'replaced whole at its ref');
      t.equal((await store.readResult(copy.path)).toString(), 'RIFF again');
      await refusesPath(t, () => store.audioSource(copy.path), 'a redacted copy is a result, not job audio');
      await refusesPath(t, () => store.moveToResult('/tmp/elsewhere.part', 'job_red', { kind: 'redacted_audio' }), 'only a spooled file');
      for (const bad of [`${copy.path}.wav`, `${copy.path}-1`, copy.path.replace('redacted-audio', 'redacted')]) {
        await refusesPath(t, () => store.readResult(bad), `readResult ${bad}`);
      }
      await t.rejects(store.moveToResult(store.createUploadPath('redacted'), 'job_red', { kind: 'redacted_audio' }), { code: 'ENOENT' }, 'a missing file');
      await age(copy.path, 2 * HOUR);
      const owners = (referenced: boolean): BlobOwners => ({ isReferenced: async () => referenced, isAwaitingUpload: async () => false });
      t.equal(await store.sweepOrphans(owners(true), HOUR), 0, 'a referenced copy stays');
      t.equal(await store.sweepOrphans(owners(false), HOUR), 1, 'an unreferenced old copy goes');
      t.equal(await store.exists(copy.path), false);
      const last = store.createUploadPath('redacted');
      writeFileSync(last, 'RIFF');
      const kept = await store.moveToResult(last, 'job_red', { kind: 'redacted_audio' });
      await store.delete(kept.path);
      await t.rejects(store.readResult(kept.path), { code: 'ENOENT' }, 'deleted like a result');
    });
  });
}

function writeStream(store: BlobStore, path: string, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = store.createUploadStream(path);
    stream.once('error', reject);
    stream.end(text, () => resolve());
  });
}

function streamFailure(stream: Readable | NodeJS.WritableStream): Promise<unknown> {
  return new Promise((resolve) => {
    stream.once('error', resolve);
    if ('resume' in stream) (stream as Readable).resume();
  });
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
