// SqliteIdempotencyStore: the claim states, replay, release, 24-hour expiry with an injected clock,
// tenant scoping, and atomicity across two connections in two processes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import type { StoredResponse } from '../../src/store/idempotency-store.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { IDEMPOTENCY_RETENTION_MS, SqliteIdempotencyStore } from '../../src/store/sqlite/sqlite-idempotency-store.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const T0 = new Date('2030-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const response: StoredResponse = {
  status: 202,
  headers: { location: 'http://127.0.0.1:8080/v1/jobs/job_1', 'retry-after': '5' },
  body: '{"id":"job_1","status":"accepted"}',
};

function openStore(t: Test) {
  const db = openDatabase(join(t.testdir(), 'svc-stt.db'));
  t.teardown(() => db.close());
  return new SqliteIdempotencyStore(db);
}

t.test('started, then in_progress, conflict, completed with the stored response', async (t) => {
  const store = openStore(t);
  t.same(store.begin('ten_a', 'k', 'fp1', T0), { state: 'started' });
  t.same(store.begin('ten_a', 'k', 'fp1', at(1)), { state: 'in_progress' });
  t.same(store.begin('ten_a', 'k', 'fp2', at(1)), { state: 'conflict' }, 'different content while in progress');
  store.complete('ten_a', 'k', response);
  t.same(store.begin('ten_a', 'k', 'fp1', at(2)), { state: 'completed', response });
  t.same(store.begin('ten_a', 'k', 'fp2', at(2)), { state: 'conflict' }, 'different content after completion');
});

t.test('keys are scoped to the tenant', async (t) => {
  const store = openStore(t);
  t.same(store.begin('ten_a', 'k', 'fp1', T0), { state: 'started' });
  t.same(store.begin('ten_b', 'k', 'fp2', T0), { state: 'started' });
});

t.test('release frees an in-progress claim but never a completed record', async (t) => {
  const store = openStore(t);
  store.begin('ten_a', 'k', 'fp1', T0);
  store.release('ten_a', 'k');
  t.same(store.begin('ten_a', 'k', 'fp2', at(1)), { state: 'started' }, 'a retry may even change content');
  store.complete('ten_a', 'k', response);
  store.release('ten_a', 'k');
  t.same(store.begin('ten_a', 'k', 'fp2', at(2)), { state: 'completed', response });
  store.release('ten_a', 'missing');
});

t.test('records expire 24 hours after the first request', async (t) => {
  const store = openStore(t);
  store.begin('ten_a', 'done', 'fp1', T0);
  store.complete('ten_a', 'done', response);
  store.begin('ten_a', 'stuck', 'fp1', T0);
  t.same(store.begin('ten_a', 'done', 'fp2', at(IDEMPOTENCY_RETENTION_MS - 1)), { state: 'conflict' });
  t.same(store.begin('ten_a', 'stuck', 'fp1', at(IDEMPOTENCY_RETENTION_MS - 1)), { state: 'in_progress' });
  t.same(store.begin('ten_a', 'done', 'fp2', at(IDEMPOTENCY_RETENTION_MS)), { state: 'started' }, 'expired: treated as absent');
  t.same(store.begin('ten_a', 'stuck', 'fp1', at(IDEMPOTENCY_RETENTION_MS)), { state: 'started' });
  t.same(store.begin('ten_a', 'done', 'fp2', at(IDEMPOTENCY_RETENTION_MS + 1)), { state: 'in_progress' }, 'the new claim counts from now');
});

t.test('sweep deletes records older than 24 hours', async (t) => {
  const store = openStore(t);
  store.begin('ten_a', 'old', 'fp', T0);
  store.complete('ten_a', 'old', response);
  store.begin('ten_a', 'older', 'fp', at(-1000));
  store.begin('ten_a', 'young', 'fp', at(60_000));
  t.equal(store.sweep(at(IDEMPOTENCY_RETENTION_MS - 1001)), 0);
  t.equal(store.sweep(at(IDEMPOTENCY_RETENTION_MS)), 2);
  t.same(store.begin('ten_a', 'young', 'fp', at(IDEMPOTENCY_RETENTION_MS)), { state: 'in_progress' });
  t.same(store.begin('ten_a', 'old', 'other', at(IDEMPOTENCY_RETENTION_MS)), { state: 'started' });
});

t.test('releaseAbandoned frees claims left in progress by a process that died', async (t) => {
  const store = openStore(t);
  store.begin('ten_a', 'a', 'fp', T0);
  store.begin('ten_a', 'b', 'fp', T0);
  store.complete('ten_a', 'b', response);
  t.equal(store.releaseAbandoned(), 1);
  t.same(store.begin('ten_a', 'a', 'fp', at(1)), { state: 'started' });
  t.same(store.begin('ten_a', 'b', 'fp', at(1)), { state: 'completed', response });
});

t.test('responses keep their exact body and headers', async (t) => {
  const store = openStore(t);
  const exotic: StoredResponse = { status: 202, headers: { 'x-note': 'é "quoted"' }, body: 'plain text\nwith ünïcode ✓' };
  store.begin('ten_a', 'k', 'fp', T0);
  store.complete('ten_a', 'k', exotic);
  t.same(store.begin('ten_a', 'k', 'fp', at(1)), { state: 'completed', response: exotic });
});

t.test('two processes racing for the same keys: exactly one started per key', async (t) => {
  const file = join(t.testdir(), 'svc-stt.db');
  openDatabase(file).close();
  const count = 300;
  const racers = [0, 1].map(() =>
    spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/idempotency-racer.ts'), file, String(count)], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const outputs = racers.map((racer) => {
    let text = '';
    racer.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return { racer, text: () => text };
  });
  const ready = (output: (typeof outputs)[number]) =>
    new Promise<void>((done) => {
      const check = () => (output.text().includes('ready\n') ? done() : setTimeout(check, 10));
      check();
    });
  await Promise.all(outputs.map(ready));
  for (const racer of racers) racer.stdin.write('go\n');
  const codes = await Promise.all(racers.map(async (racer) => (await once(racer, 'close'))[0]));
  t.same(codes, [0, 0]);
  const [a, b] = outputs.map((output) => JSON.parse(output.text().split('\n')[1]) as string[]);
  const wrong = a.map((state, i) => [state, b[i]].sort().join('+')).filter((pair) => pair !== 'in_progress+started');
  t.same(wrong, [], `every key: one started, one in_progress (${a.filter((s) => s === 'started').length} won by the first)`);
});
