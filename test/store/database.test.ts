// openDatabase: durability settings, migrations applied once and safely re-run, refusals.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import t from 'tap';

import { DATABASE_FILE_NAME, databasePath, openDatabase } from '../../src/store/sqlite/database.js';
import { MigrationError, MIGRATIONS, runMigrations } from '../../src/store/sqlite/migrations.js';

const latest = MIGRATIONS.at(-1)!.version;

t.test('databasePath names svc-stt.db inside the data folder', async (t) => {
  t.equal(databasePath('/srv/data'), join('/srv/data', DATABASE_FILE_NAME));
});

t.test('creates the parent folder and sets WAL, synchronous=FULL, foreign keys, busy timeout', async (t) => {
  const file = join(t.testdir(), 'nested', 'deeper', 'svc-stt.db');
  const db = openDatabase(file);
  t.teardown(() => db.close());
  t.ok(existsSync(file));
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  t.equal(db.pragma('synchronous', { simple: true }), 2, 'FULL');
  t.equal(db.pragma('foreign_keys', { simple: true }), 1);
  t.ok((db.pragma('busy_timeout', { simple: true }) as number) >= 1000);
  t.equal(db.pragma('user_version', { simple: true }), latest);
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all();
  for (const table of ['api_keys', 'idempotency_records', 'jobs', 'key_dictionaries', 'schema_migrations']) {
    t.ok(tables.includes(table), `table ${table}`);
  }
});

t.test('re-opening an existing file keeps its data and applies nothing twice', async (t) => {
  const file = join(t.testdir(), 'svc-stt.db');
  const first = openDatabase(file);
  first
    .prepare(
      `INSERT INTO jobs (id, tenant, key_id, status, model, request, created_at, updated_at)
    VALUES ('job_1', 'ten_1', 'key_1', 'accepted', 'svc-medical-1', '{}', 'now', 'now')`,
    )
    .run();
  first.close();
  for (let round = 0; round < 3; round++) {
    const again = openDatabase(file);
    t.equal(again.prepare('SELECT count(*) FROM jobs').pluck().get(), 1, `round ${round}: data kept`);
    t.equal(again.prepare('SELECT count(*) FROM schema_migrations').pluck().get(), MIGRATIONS.length);
    t.same(runMigrations(again), [], 'nothing left to apply');
    again.close();
  }
});

t.test('a later migration is applied to an existing database, in order', async (t) => {
  const file = join(t.testdir(), 'svc-stt.db');
  openDatabase(file).close();
  const db = new BetterSqlite3(file);
  t.teardown(() => db.close());
  const next = { version: latest + 1, name: 'job leases', sql: 'ALTER TABLE jobs ADD COLUMN lease_until TEXT' };
  t.same(runMigrations(db, [...MIGRATIONS, next]), [latest + 1]);
  t.same(runMigrations(db, [...MIGRATIONS, next]), []);
  const columns = db.prepare(`SELECT name FROM pragma_table_info('jobs')`).pluck().all();
  t.ok(columns.includes('lease_until'));
  t.equal(db.pragma('user_version', { simple: true }), latest + 1);
});

t.test('a failing migration leaves no trace (it runs in a transaction)', async (t) => {
  const file = join(t.testdir(), 'svc-stt.db');
  openDatabase(file).close();
  const db = new BetterSqlite3(file);
  t.teardown(() => db.close());
  const broken = { version: latest + 1, name: 'broken', sql: 'CREATE TABLE half_done (x INTEGER); SELECT * FROM no_such_table;' };
  t.throws(() => runMigrations(db, [...MIGRATIONS, broken]));
  t.equal(db.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'half_done'`).pluck().get(), 0);
  t.equal(db.prepare('SELECT max(version) FROM schema_migrations').pluck().get(), latest);
});

t.test('a database written by a newer svc-stt is refused, not modified', async (t) => {
  const file = join(t.testdir(), 'svc-stt.db');
  openDatabase(file).close();
  const raw = new BetterSqlite3(file);
  raw.prepare(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 'now')`).run(latest + 5);
  raw.close();
  t.throws(() => openDatabase(file), MigrationError);
  t.throws(() => openDatabase(file), /upgrade svc-stt/);
});

t.test('migration versions must be 1, 2, 3, ... in order', async (t) => {
  const db = new BetterSqlite3(':memory:');
  t.teardown(() => db.close());
  t.throws(() => runMigrations(db, [{ version: 2, name: 'skipped one', sql: '' }]), MigrationError);
});
