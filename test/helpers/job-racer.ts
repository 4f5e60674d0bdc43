// A separate process working the job store of a shared SQLite file, for the two-process test in
// test/store/sqlite-at-rest.test.ts:
//   node --import tsx test/helpers/job-racer.ts DB_FILE WORKER
// Prints "ready" once its connection is open, waits for a line on stdin, then claims jobs until none
// is left and completes every upload slot it finds, and prints what it won as one JSON line
// ({ claimed, accepted }). A short random pause between calls lets the other process take the
// write lock in between, so the two really interleave; `complete` is an `immediate` transaction,
// so a process holds SQLite's write lock across its awaits while the other waits in the busy handler.
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { testJobStore } from './test-sealer.js';

const [file, worker] = process.argv.slice(2);
const db = openDatabase(file);
const jobs = testJobStore(sqliteStoreDb(db));
const slots = db
  .prepare<[], { id: string }>(`SELECT id FROM jobs WHERE status = 'awaiting_upload' ORDER BY id`)
  .all()
  .map((row) => row.id);
process.stdout.write('ready\n');
process.stdin.once('data', async () => {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const breathe = () => Atomics.wait(pause, 0, 0, Math.random() * 2);
  const claimed: string[] = [];
  for (let job = await jobs.claimNext(worker, 5_000, 60_000); job; job = await jobs.claimNext(worker, 5_000, 60_000)) {
    claimed.push(job.id);
    breathe();
  }
  const accepted: string[] = [];
  for (const id of slots) {
    if ((await jobs.complete(id, 'ten_a', 6_000)).outcome === 'accepted') accepted.push(id);
    breathe();
  }
  db.close();
  process.stdout.write(`${JSON.stringify({ claimed, accepted })}\n`);
  process.exit(0);
});
