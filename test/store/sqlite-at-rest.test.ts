// What only the SQLite stores can show: the bytes in the database files themselves (secrets are
// hashed or sealed at rest, WAL included) and atomicity of two processes on one database file. The behaviour every store
// shares is in the contract suites (test/store/contract/).
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

import t, { type Test } from 'tap';

import { KyselyWebhookSecretStore } from '../../src/store/kysely/kysely-webhook-secret-store.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { signingKeyOf } from '../../src/store/webhook-signing-secret.js';
import { testJobStore, testKeyStore, testVoiceProfileStore } from '../helpers/test-sealer.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const T0 = new Date('2031-03-04T05:06:07.000Z');
const HOUR = 3600_000;

function openFolder(t: Test) {
  const dir = t.testdir();
  const db = openDatabase(join(dir, 'svc-stt.db'));
  t.teardown(() => db.close());
  return { dir, db };
}

t.test('API keys: only a SHA-256 of the secret is in the database files, WAL included', async (t) => {
  const { dir, db } = openFolder(t);
  const store = testKeyStore(sqliteStoreDb(db));
  const { key, record } = await store.create();
  const secret = /^svc_[0-9A-Za-z]{12}_([A-Za-z0-9_-]{43})$/.exec(key)![1];
  const row = db.prepare('SELECT secret_sha256 FROM api_keys WHERE id = ?').get(record.id) as { secret_sha256: Buffer };
  t.same(row.secret_sha256, createHash('sha256').update(secret).digest());
  const files = readdirSync(dir);
  t.ok(
    files.some((name) => name.endsWith('-wal')),
    'the WAL is checked too',
  );
  for (const name of files) t.notOk(readFileSync(join(dir, name)).includes(secret), `${name} does not contain the secret`);
});

t.test('webhook secrets: neither the secret nor its key bytes are in the database files', async (t) => {
  const { dir, db } = openFolder(t);
  const keyId = (await testKeyStore(sqliteStoreDb(db)).create()).record.id;
  const secrets = new KyselyWebhookSecretStore(sqliteStoreDb(db), randomBytes(32));
  const shown = [(await secrets.create(keyId, T0.getTime())).secret, (await secrets.rotate(keyId, T0.getTime() + HOUR)).secret];
  // The WAL holds the newest pages until a checkpoint; read every file in the folder as it is.
  const files = readdirSync(dir).map((name) => ({ name, bytes: readFileSync(join(dir, name)) }));
  t.ok(
    files.some((file) => file.name.endsWith('-wal') && file.bytes.length > 0),
    'the WAL is checked too',
  );
  for (const secret of shown) {
    const key = signingKeyOf(secret);
    for (const { name, bytes } of files) {
      for (const encoded of [key, key.toString('base64'), key.toString('base64url'), key.toString('hex')]) {
        t.notOk(bytes.includes(encoded), `${name}: not the key bytes in any encoding`);
      }
    }
  }
});

t.test('a deleted voice: neither its name nor its profile stays in the database files, WAL included', async (t) => {
  const { dir, db } = openFolder(t);
  const voices = testVoiceProfileStore(sqliteStoreDb(db));
  const name = 'Dr Zephyrine Quillfeather-Osei';
  // Random statistics: each number's JSON (17 or so digits) is found nowhere by chance.
  const mean = Float64Array.from({ length: 19 }, () => Math.random());
  const covariance = Float64Array.from({ length: 19 * 19 }, () => Math.random());
  const numbers = [...mean, ...covariance].map((n) => JSON.stringify(n));
  const other = () => Float64Array.from({ length: 19 * 19 }, () => Math.random());
  const kept = await voices.create('clinic-a', 'Dr Kept', { frames: 400, mean: other().subarray(0, 19), covariance: other() }, T0.getTime());
  const voice = await voices.create('clinic-a', name, { frames: 400, mean, covariance }, T0.getTime());
  // Every file in the folder as it is now, and which of them hold `fragment`.
  const scan = () => {
    const files = readdirSync(dir)
      .sort()
      .map((file) => ({ file, bytes: readFileSync(join(dir, file)) }));
    return {
      names: files.map(({ file }) => file),
      holding: (fragment: string) => files.filter(({ bytes }) => bytes.includes(fragment)).map(({ file }) => file),
    };
  };
  const before = scan();
  t.ok(before.holding(name).length > 0, 'the name is in the files before (the scan can find it)');
  // Sealed under the tenant's data key (issue 48): not one number is in the files even before.
  t.same(
    numbers.filter((n) => before.holding(n).length > 0),
    [],
    'the profile is sealed in the files before',
  );

  t.ok(await voices.remove('clinic-a', voice.id), 'deleted');
  const after = scan();
  t.same(after.names, ['svc-stt.db', 'svc-stt.db-shm', 'svc-stt.db-wal'], 'the database file and its WAL are scanned');
  t.same(after.holding(name), [], 'the name is in no file');
  t.same(
    numbers.filter((n) => after.holding(n).length > 0),
    [],
    'no number of the profile is in any file',
  );
  t.equal((await voices.get('clinic-a', kept.id))?.name, 'Dr Kept', 'another voice is still there');
});

t.test('two processes racing for the same idempotency keys: exactly one started per key', async (t) => {
  const file = join(t.testdir(), 'svc-stt.db');
  openDatabase(file).close();
  const count = 300;
  const racers = [0, 1].map(() =>
    spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/idempotency-racer.ts'), file, String(count)], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const [a, b] = await raceOnce<string[]>(racers);
  const wrong = a.map((state, i) => [state, b[i]].sort().join('+')).filter((pair) => pair !== 'in_progress+started');
  t.same(wrong, [], `every key: one started, one in_progress (${a.filter((s) => s === 'started').length} won by the first)`);
});

t.test('two processes claiming jobs and completing upload slots on one file: each job claimed once, each slot accepted once', async (t) => {
  const file = join(t.testdir(), 'svc-stt.db');
  const db = openDatabase(file);
  const jobs = testJobStore(sqliteStoreDb(db));
  const queued = new Set<string>();
  const slots = new Set<string>();
  const job = { tenant: 'ten_a', keyId: 'key_AAAAAAAAAAAA', request: {}, audioSeconds: 1, webhookUrl: null };
  for (let i = 0; i < 60; i++) queued.add((await jobs.create({ ...job, status: 'accepted', audioPath: `/a/${i}.audio` }, new Date(1_000 + i))).id);
  for (let i = 0; i < 30; i++) {
    const slot = await jobs.create(
      { ...job, status: 'awaiting_upload', audioPath: null, upload: { bytes: 10, expiresAtMs: 9_000, completeByMs: 9_000 } },
      new Date(1_000),
    );
    t.ok((await jobs.beginUpload(slot.id, 2_000)) && (await jobs.storeUpload(slot.id, `/a/slot${i}.audio`, 2_100)));
    slots.add(slot.id);
  }
  db.close();
  const racers = ['w-a', 'w-b'].map((worker) =>
    spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/job-racer.ts'), file, worker], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const outputs = await raceOnce<{ claimed: string[]; accepted: string[] }>(racers);
  const claimed = outputs.flatMap((output) => output.claimed);
  const accepted = outputs.flatMap((output) => output.accepted);
  // A slot the other process already accepted is claimable too: the claims cover the queued jobs.
  t.equal(new Set(claimed).size, claimed.length, 'no job claimed twice');
  t.same(
    [...queued].filter((id) => !claimed.includes(id)),
    [],
    'every queued job claimed',
  );
  t.same(
    claimed.filter((id) => !queued.has(id) && !slots.has(id)),
    [],
    'nothing else',
  );
  t.equal(accepted.length, slots.size, 'as many accepted as slots');
  t.same(new Set(accepted), slots, 'every slot, none twice');
  t.ok(
    outputs.every((output) => output.claimed.length > 0),
    `both processes claimed (${outputs.map((output) => output.claimed.length).join(' + ')})`,
  );
});

/** Waits for each racer's "ready", starts them together, and returns what each printed last. */
async function raceOnce<Output>(racers: Array<ChildProcessByStdio<Writable, Readable, null>>): Promise<Output[]> {
  const texts = racers.map((racer) => {
    let text = '';
    racer.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return () => text;
  });
  await Promise.all(
    texts.map(
      (text) =>
        new Promise<void>((done) => {
          const check = () => (text().includes('ready\n') ? done() : setTimeout(check, 10));
          check();
        }),
    ),
  );
  for (const racer of racers) racer.stdin.write('go\n');
  const codes = await Promise.all(racers.map(async (racer) => (await once(racer, 'close'))[0]));
  if (codes.some((code) => code !== 0)) throw new Error(`a racer exited with ${codes.join(', ')}`);
  return texts.map((text) => JSON.parse(text().split('\n')[1]) as Output);
}
