// immediate() (src/store/kysely/immediate.ts) on SQLite: a transition commits whole or not at all,
// and one nested inside another is refused before it can run `begin` inside the open transaction
// (whose failure would roll back the outer one, leaving its later statements to autocommit).
import { join } from 'node:path';

import { sql } from 'kysely';
import t, { type Test } from 'tap';

import { immediate } from '../../src/store/kysely/immediate.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { openDatabase } from '../../src/store/sqlite/database.js';

function openStoreDb(t: Test) {
  const database = openDatabase(join(t.testdir(), 'svc-stt.db'));
  t.teardown(() => database.close());
  database.exec('CREATE TABLE IF NOT EXISTS probe (n INTEGER)');
  return { database, db: sqliteStoreDb(database) };
}

t.test('what work writes is committed when it returns, and rolled back when it throws', async (t) => {
  const { database, db } = openStoreDb(t);
  await immediate(db, (trx) => sql`INSERT INTO probe (n) VALUES (1)`.execute(trx));
  await t.rejects(
    immediate(db, async (trx) => {
      await sql`INSERT INTO probe (n) VALUES (2)`.execute(trx);
      throw new Error('refused');
    }),
    /refused/,
  );
  t.same(database.prepare('SELECT n FROM probe ORDER BY n').all(), [{ n: 1 }]);
});

t.test('an immediate() inside another is refused, and the outer transaction still rolls back whole', async (t) => {
  const { database, db } = openStoreDb(t);
  await t.rejects(
    immediate(db, async (trx) => {
      await sql`INSERT INTO probe (n) VALUES (3)`.execute(trx);
      await immediate(trx, (inner) => sql`INSERT INTO probe (n) VALUES (4)`.execute(inner));
    }),
    /immediate\(\) inside a transaction/,
  );
  t.same(database.prepare('SELECT n FROM probe').all(), [], 'nothing of either was kept');
  await immediate(db, (trx) => sql`INSERT INTO probe (n) VALUES (5)`.execute(trx));
  t.same(database.prepare('SELECT n FROM probe').all(), [{ n: 5 }], 'the connection is usable afterwards');
});
