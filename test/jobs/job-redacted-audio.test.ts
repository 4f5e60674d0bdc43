// A job's redacted copy of its audio (src/jobs/job-redacted-audio.ts) with redactions it is given:
// real local blobs and ffmpeg. The copy is kept as the job's result blob, silent over each redaction
// padded by REDACTION_PAD_SECONDS; one that cannot be made is null, with nothing left in the spool.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import t, { type Test } from 'tap';

import { decodeAudio, TONE_HZ } from '../../src/audio/index.js';
import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
import { makeRedactedAudio, REDACTION_PAD_SECONDS } from '../../src/jobs/job-redacted-audio.js';
import type { BlobStore } from '../../src/store/blob-store.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { LocalBlobStore } from '../../src/store/local-blob-store.js';
import { SealedBlobStore } from '../../src/store/sealed-blob-store.js';
import { wavFileBytes } from '../helpers/audio-fixtures.js';
import { testSealer } from '../helpers/test-sealer.js';
import { sqliteDatabases } from '../store/contract/store-databases.js';

const SECONDS = 5;
const config = { decodeTimeoutMs: 30_000, maxAudioSeconds: 60 };

const TENANT = 'tenant-redacted';

/** Job audio and results sealed, as the service keeps them: ffmpeg reads the audio through the loopback source. */
async function setUp(t: Test) {
  const databases = await sqliteDatabases(t); // it makes the test's folder (afresh)
  const dir = t.testdirName;
  const local = new LocalBlobStore(join(dir, 'blobs'));
  const sealed = new SealedBlobStore(local, testSealer(sqliteStoreDb(databases.db)));
  t.teardown(async () => {
    sealed.close();
    await databases.close();
  });
  const blobs = sealed.forTenant(TENANT);
  const samples = new Int16Array(SECONDS * SAMPLE_RATE).fill(1000);
  const upload = blobs.createUploadPath('direct');
  writeFileSync(upload, wavFileBytes(samples));
  const warnings: string[] = [];
  const log = { warn: (_obj: object, msg: string) => warnings.push(msg) };
  return { dir, sealed, blobs, upload, warnings, log, spooled: () => readdirSync(join(local.root, 'uploads')) };
}

t.test('silent over each redaction padded, merged where they meet; kept as the job result blob', async (t) => {
  const { dir, sealed, blobs, upload, log, spooled } = await setUp(t);
  const audioPath = await blobs.moveToJobAudio(upload, 'job_r1');
  const redactions = [
    { type: 'person_name', start: 1, end: 1.5 },
    { type: 'phone_number', start: 1.8, end: 2.1 },
    { type: 'date', start: 4.9, end: 5 },
  ];
  const ref = await makeRedactedAudio({ blobs: sealed, config, log }, { id: 'job_r1', tenant: TENANT, audioPath }, 'wav', redactions);
  t.match(ref, /results\/job_r1\.redacted-audio$/);
  for (const stored of [audioPath, ref!]) t.equal(readFileSync(stored).subarray(0, 4).toString('latin1'), 'SSS1', 'sealed at rest');
  const copyPath = join(dir, 'copy.wav');
  writeFileSync(copyPath, await blobs.readResult(ref!));
  const copy = await decodeAudio(copyPath, { maxSeconds: 60, timeoutMs: 30_000 });
  t.equal(copy.length, SECONDS * SAMPLE_RATE);
  const pad = REDACTION_PAD_SECONDS;
  t.equal(pad, 0.2);
  const silent = [
    [1 - pad, 2.1 + pad],
    [4.9 - pad, 5],
  ];
  const at = (s: number) => Math.round(s * SAMPLE_RATE);
  for (const [from, to] of silent)
    t.ok(
      copy.slice(at(from), at(to)).every((x) => x === 0),
      `silent ${from}-${to} s`,
    );
  const loud = [
    [0, 1 - pad],
    [2.1 + pad, 4.9 - pad],
  ];
  for (const [from, to] of loud)
    t.ok(
      copy.slice(at(from), at(to)).every((x) => x === 1000 / 32768),
      `the original ${from}-${to} s`,
    );
  t.equal(await blobs.exists(audioPath), true, 'the original is left for the caller to delete');
  t.same(spooled(), [], 'nothing left in the spool');
});

t.test('fill tone: the redactions padded carry a 1 kHz sine, the rest is the original', async (t) => {
  const { dir, sealed, blobs, upload, log } = await setUp(t);
  const audioPath = await blobs.moveToJobAudio(upload, 'job_r3');
  const ref = await makeRedactedAudio({ blobs: sealed, config, log }, { id: 'job_r3', tenant: TENANT, audioPath }, 'wav', [{ start: 2, end: 2.5 }], 'tone');
  const copyPath = join(dir, 'copy.wav');
  writeFileSync(copyPath, await blobs.readResult(ref!));
  const copy = await decodeAudio(copyPath, { maxSeconds: 60, timeoutMs: 30_000 });
  const at = (s: number) => Math.round(s * SAMPLE_RATE);
  const [from, to] = [at(2 - REDACTION_PAD_SECONDS), at(2.5 + REDACTION_PAD_SECONDS)];
  let off = 0;
  for (let i = from; i < to; i += 1) {
    if (Math.round(copy[i] * 32768) !== Math.round(8192 * Math.sin((2 * Math.PI * TONE_HZ * i) / SAMPLE_RATE))) off += 1;
  }
  t.equal(off, 0, 'the tone, sample for sample, over 1.8-2.7 s');
  t.ok(
    [...copy.slice(0, from), ...copy.slice(to)].every((x) => x === 1000 / 32768),
    'the original elsewhere',
  );
});

t.test('a copy that cannot be made is null, logged, with nothing left in the spool', async (t) => {
  const { sealed, blobs, upload, warnings, log, spooled } = await setUp(t);
  const audioPath = await blobs.moveToJobAudio(upload, 'job_r2');
  t.equal(
    await makeRedactedAudio({ blobs: sealed, config, log }, { id: 'job_r2', tenant: TENANT, audioPath }, 'mp3', [{ start: 1, end: 2 }]),
    null,
    'undecodable as declared',
  );
  t.same(warnings, ['the redacted audio could not be made; the job succeeds without it']);
  const failing = {
    forTenant: (tenant: string) =>
      Object.assign(Object.create(sealed.forTenant(tenant)) as BlobStore, {
        moveToResult: async () => {
          throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        },
      }),
  } as unknown as SealedBlobStore;
  t.equal(await makeRedactedAudio({ blobs: failing, config, log }, { id: 'job_r2', tenant: TENANT, audioPath }, 'wav', []), null, 'not kept');
  t.equal(await makeRedactedAudio({ blobs: sealed, config, log }, { id: 'job_r2', tenant: TENANT, audioPath: null }, 'wav', []), null, 'no audio');
  t.same(spooled(), [], 'nothing left in the spool');
  t.equal(await blobs.exists(audioPath), true);
});
