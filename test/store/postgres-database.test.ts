// openPostgres on a real PostgreSQL 15 server (test/helpers/postgres-server.ts): migrations at open
// (fresh database, concurrent openers, a newer schema refused), BIGINT as numbers, the transaction
// helper, and a pool that outlives a server restart.
import pg from 'pg';
import t, { type Test } from 'tap';

import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/database.js';
import { type Migration, MigrationError, MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { sharedPostgres, startPostgres } from '../helpers/postgres-server.js';

const LATEST = MIGRATIONS.at(-1)!.version;

async function freshDatabase(): Promise<string> {
  return (await sharedPostgres()).createDatabase();
}

async function open(t: Test, url: string, migrations?: readonly Migration[]): Promise<PostgresDatabase> {
  const db = await openPostgres(url, { migrations });
  t.teardown(() => db.close());
  return db;
}

async function appliedVersions(db: PostgresDatabase): Promise<Array<{ version: number; times: number }>> {
  const { rows } = await db.query<{ version: number; times: number }>(
    'SELECT version, count(*)::int AS times FROM schema_migrations GROUP BY version ORDER BY version',
  );
  return rows;
}

t.test('a fresh database gets every step, recorded once; opening again applies nothing', async (t) => {
  const url = await freshDatabase();
  const db = await open(t, url);
  t.same(
    await appliedVersions(db),
    MIGRATIONS.map((m) => ({ version: m.version, times: 1 })),
  );
  const { rows } = await db.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`);
  t.same(
    rows.map((row) => row.table_name),
    [
      'api_keys',
      'billing_plans',
      'billing_settings',
      'console_invites',
      'console_password_failures',
      'console_pending_sign_ins',
      'console_recovery_codes',
      'console_sessions',
      'console_sign_in_attempts',
      'console_tenant_settings',
      'console_totp',
      'console_users',
      'erased_tenants',
      'idempotency_records',
      'jobs',
      'key_billing',
      'key_dictionaries',
      'realtime_client_secrets',
      'realtime_seats',
      'schema_migrations',
      'service_instances',
      'tenant_data_keys',
      'usage_events',
      'usage_key_costs',
      'usage_pool_totals',
      'usage_reservations',
      'voice_profiles',
      'webhook_deliveries',
      'webhook_secrets',
    ],
  );
  await db.close();
  const again = await open(t, url);
  t.same(
    await appliedVersions(again),
    MIGRATIONS.map((m) => ({ version: m.version, times: 1 })),
  );
});

t.test('the schema matches the SQLite one: every SQLite column exists under the same name', async (t) => {
  const { openDatabase } = await import('../../src/store/sqlite/database.js');
  const sqlite = openDatabase(':memory:');
  t.teardown(() => sqlite.close());
  const db = await open(t, await freshDatabase());
  const tables = sqlite
    .prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations' ORDER BY name`)
    .all()
    .map((row) => row.name);
  for (const table of tables) {
    const sqliteColumns = sqlite
      .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}') ORDER BY name`)
      .all()
      .map((c) => c.name);
    const { rows } = await db.query<{ column_name: string }>('SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY column_name', [
      table,
    ]);
    t.same(rows.map((row) => row.column_name).sort(), sqliteColumns.sort(), `${table}: same columns`);
  }
  const indexes = sqlite
    .prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)
    .all()
    .map((row) => row.name);
  const { rows } = await db.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexname = ANY($1)`, [indexes]);
  t.same(rows.map((row) => row.indexname).sort(), indexes, 'same named indexes');
});

t.test('many processes opening one fresh database at once: all succeed, each step applied once', async (t) => {
  const url = await freshDatabase();
  const dbs = await Promise.all(Array.from({ length: 4 }, () => openPostgres(url)));
  t.teardown(() => Promise.all(dbs.map((db) => db.close())));
  t.same(
    await appliedVersions(dbs[0]),
    MIGRATIONS.map((m) => ({ version: m.version, times: 1 })),
  );

  // A slow step makes the openers overlap for certain: the waiting ones must find it applied, not apply it again.
  const slow: Migration[] = [
    { version: 1, name: 'slow', sql: 'SELECT pg_sleep(0.2); CREATE TABLE counted (n INTEGER)' },
    { version: 2, name: 'counts its runs', sql: 'INSERT INTO counted VALUES (1)' },
  ];
  const other = await freshDatabase();
  const openers = await Promise.all(Array.from({ length: 4 }, () => openPostgres(other, { migrations: slow })));
  t.teardown(() => Promise.all(openers.map((db) => db.close())));
  t.same(await appliedVersions(openers[0]), [
    { version: 1, times: 1 },
    { version: 2, times: 1 },
  ]);
  t.same((await openers[3].query('SELECT n FROM counted')).rows, [{ n: 1 }], 'step 2 ran once');
});

t.test('a database whose schema is newer than this code is refused, unchanged', async (t) => {
  const url = await freshDatabase();
  const db = await open(t, url);
  await db.query(`INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, 'from the future', 'x')`, [LATEST + 1]);
  await t.rejects(openPostgres(url), MigrationError);
  await t.rejects(openPostgres(url), {
    name: 'MigrationError',
    message: `the database has schema version ${LATEST + 1} but this svc-stt knows only up to ${LATEST}: upgrade svc-stt`,
  });
  t.equal((await appliedVersions(db)).length, LATEST + 1, 'nothing rolled back or added');
});

t.test('out-of-order migration lists are refused before touching the database', async (t) => {
  const url = await freshDatabase();
  await t.rejects(openPostgres(url, { migrations: [{ version: 2, name: 'gap', sql: 'CREATE TABLE nope (n INTEGER)' }] }), {
    name: 'MigrationError',
    message: /has version 2, expected 1/,
  });
  const check = new pg.Client({ connectionString: url });
  await check.connect();
  t.teardown(() => check.end());
  t.same((await check.query(`SELECT to_regclass('nope') AS t`)).rows, [{ t: null }]);
});

t.test('BIGINT comes back as a number on our pools only; beyond 2^53 the query fails', async (t) => {
  const url = await freshDatabase();
  const db = await open(t, url);
  const { rows } = await db.query('SELECT 9007199254740991::bigint AS max, count(*) AS n, 1234567890123::bigint AS ms');
  t.same(rows, [{ max: Number.MAX_SAFE_INTEGER, n: 1, ms: 1234567890123 }]);
  await db.query(
    `INSERT INTO idempotency_records (tenant, key, fingerprint, state, created_at_ms) VALUES ('t', 'k', 'f', 'in_progress', $1)`,
    [1_900_000_000_000],
  );
  const stored = await db.query('SELECT created_at_ms FROM idempotency_records');
  t.equal(stored.rows[0].created_at_ms, 1_900_000_000_000);
  await t.rejects(db.query('SELECT 9007199254740993::bigint AS big'), { name: 'RangeError', message: /9007199254740993 is beyond/ });
  t.same((await db.query('SELECT 1 AS ok')).rows, [{ ok: 1 }], 'the pool still works after a refused value');

  const plain = new pg.Client({ connectionString: url });
  await plain.connect();
  t.teardown(() => plain.end());
  t.same((await plain.query('SELECT 5::bigint AS n')).rows, [{ n: '5' }], 'the global pg.types are untouched');
});

t.test('transaction: commits what returns, rolls back what throws, always releases the client', async (t) => {
  const db = await open(t, await freshDatabase());
  await db.query('CREATE TABLE items (name TEXT)');
  const result = await db.transaction(async (client) => {
    await client.query(`INSERT INTO items VALUES ('kept')`);
    return 'done';
  });
  t.equal(result, 'done');
  const failure = new Error('boom');
  await t.rejects(
    db.transaction(async (client) => {
      await client.query(`INSERT INTO items VALUES ('lost')`);
      throw failure;
    }),
    failure,
    'the error of the work is the error of the transaction',
  );
  await t.rejects(
    db.transaction(async (client) => {
      await client.query(`INSERT INTO items VALUES ('lost too')`);
      await client.query('SELECT * FROM no_such_table');
    }),
    { code: '42P01' },
  );
  t.same((await db.query('SELECT name FROM items')).rows, [{ name: 'kept' }]);
  t.equal(db.pool.totalCount, db.pool.idleCount, 'no client left checked out');
  // Isolation: what a transaction wrote is invisible to others until it commits.
  let seenInside: unknown;
  await db.transaction(async (client) => {
    await client.query(`INSERT INTO items VALUES ('pending')`);
    seenInside = (await db.query(`SELECT count(*) AS n FROM items WHERE name = 'pending'`)).rows[0].n;
  });
  t.equal(seenInside, 0, 'not visible to another connection before COMMIT');
  t.equal((await db.query(`SELECT count(*) AS n FROM items WHERE name = 'pending'`)).rows[0].n, 1);
});

t.test('the pool survives the server going away and coming back', async (t) => {
  // Its own cluster: stopping the shared one would disturb the other tests of this file.
  const server = await startPostgres();
  t.teardown(() => server.destroy());
  const db = await open(t, await server.createDatabase());
  await db.query('SELECT 1');
  t.equal(db.pool.idleCount, 1, 'an idle connection that the stop will cut');
  await server.stop();
  await t.rejects(db.query('SELECT 1'), 'no server: queries fail');
  await server.start();
  t.same((await db.query('SELECT 1 AS ok')).rows, [{ ok: 1 }], 'back: a new connection, no crash from the cut idle one');
});
