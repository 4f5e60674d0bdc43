// KeyUseRecorder on the real key store (SQLite, its clock injected): a use is written beside the
// caller, never awaited by it; this process writes a key at most once a minute (its memo, and the time
// the key's record already carries: a row cleared behind its back stays cleared within the minute);
// a refused key writes nothing; a failed write (the database closed) is logged, never thrown.
import { join } from 'node:path';

import t, { type Test } from 'tap';

import { KeyUseRecorder } from '../../src/store/key-use-recorder.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { testKeyStore } from '../helpers/test-sealer.js';

const T0 = Date.parse('2030-04-05T06:07:08.000Z');

function harness(t: Test) {
  const db = openDatabase(join(t.testdir(), 'svc-stt.db'));
  t.teardown(() => {
    if (db.open) db.close();
  });
  const clock = { nowMs: T0 };
  const keys = testKeyStore(sqliteStoreDb(db), () => clock.nowMs);
  const warnings: Array<{ details: object; message: string }> = [];
  const recorder = new KeyUseRecorder(keys, () => clock.nowMs, { warn: (details, message) => warnings.push({ details, message }) });
  /** Forgets the stored use, as if nothing had written it (the recorder cannot tell). */
  const clear = (id: string) => db.prepare('UPDATE api_keys SET last_used_at = NULL WHERE id = ?').run(id);
  return { db, clock, keys, recorder, warnings, clear };
}

t.test('a use is written on the clock; within the minute this process does not write again; after it, it does', async (t) => {
  const { clock, keys, recorder, warnings, clear } = harness(t);
  const { record } = await keys.create({}, new Date(T0));
  t.equal(recorder.record(record), undefined, 'nothing for the caller to wait for');
  await recorder.settled();
  t.equal((await keys.get(record.id))?.lastUsedAt, new Date(T0).toISOString());

  clear(record.id);
  clock.nowMs = T0 + 60_000;
  recorder.record(record);
  await recorder.settled();
  t.equal((await keys.get(record.id))?.lastUsedAt, null, 'within the minute: the memo spares the store');

  clock.nowMs = T0 + 60_001;
  recorder.record(record);
  await recorder.settled();
  t.equal((await keys.get(record.id))?.lastUsedAt, new Date(T0 + 60_001).toISOString(), 'past it: written');
  t.same(warnings, []);
});

t.test("a key whose record says it was used within the minute is not written (another process's write)", async (t) => {
  const { clock, keys, recorder, clear } = harness(t);
  const { record } = await keys.create({}, new Date(T0));
  await keys.recordUse(record.id);
  const read = (await keys.get(record.id))!;
  clear(record.id);
  clock.nowMs = T0 + 30_000;
  recorder.record(read);
  await recorder.settled();
  t.equal((await keys.get(record.id))?.lastUsedAt, null);
});

t.test('a refused key is not recorded', async (t) => {
  const { keys, recorder } = harness(t);
  const { record } = await keys.create({}, new Date(T0));
  await keys.revoke(record.id, new Date(T0));
  recorder.record((await keys.get(record.id))!);
  await recorder.settled();
  t.equal((await keys.get(record.id))?.lastUsedAt, null);
});

t.test('a failed write is logged with the key id, never thrown to the caller', async (t) => {
  const { db, keys, recorder, warnings } = harness(t);
  const { record } = await keys.create({}, new Date(T0));
  db.close();
  t.doesNotThrow(() => recorder.record(record));
  await recorder.settled();
  t.equal(warnings.length, 1);
  t.match(warnings[0], { details: { keyId: record.id, err: Error }, message: "a key's last use was not recorded" });
});
