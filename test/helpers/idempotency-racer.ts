// A separate process claiming idempotency keys on a shared database file, for the concurrency test:
//   node --import tsx test/helpers/idempotency-racer.ts DB_FILE COUNT
// Prints "ready" once its connection is open, waits for a line on stdin, then calls begin() for
// keys k0..k(COUNT-1) and prints the outcomes as one JSON array. A short random pause between calls
// lets the other process take the write lock in between, so the two really interleave on each key.
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { testIdempotencyStore } from './test-sealer.js';

const [file, countText] = process.argv.slice(2);
const db = openDatabase(file);
const store = testIdempotencyStore(sqliteStoreDb(db));
process.stdout.write('ready\n');
process.stdin.once('data', async () => {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const states: string[] = [];
  for (let i = 0; i < Number(countText); i += 1) {
    Atomics.wait(pause, 0, 0, Math.random() * 2);
    states.push((await store.begin('ten_race', `k${i}`, 'same-fingerprint')).state);
  }
  db.close();
  process.stdout.write(`${JSON.stringify(states)}\n`);
  process.exit(0);
});
