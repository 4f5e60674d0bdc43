// The usage totals (SQLite migration 8, PostgreSQL 6) filled from the events a database recorded
// before them: an upgraded database decides and charges as if it had kept them all along; and kept
// by the database itself, so an event inserted by a writer that knows nothing of them (a process of
// the previous version, during a rolling upgrade) is in them too.
import { join } from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import t, { type Test } from 'tap';

import { KyselyUsageLedger } from '../../src/store/kysely/kysely-usage-ledger.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { openPostgres } from '../../src/store/postgres/database.js';
import { MIGRATIONS as PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { MIGRATIONS as SQLITE_MIGRATIONS, runMigrations } from '../../src/store/sqlite/migrations.js';
import type { UsageLedger } from '../../src/store/usage-ledger.js';
import { USAGE_EVENT_COLUMNS, type UsageEvent, type UsageEventRow, usageEventRow } from '../../src/store/usage-record.js';
import { sharedPostgres } from '../helpers/postgres-server.js';
import { usageEvent } from '../helpers/usage-events.js';

const HOUR = 3_600_000;

const event = (n: number, fields: Partial<UsageEvent>) => usageEvent({ eventKey: `job:old-${n}`, period: '2026-10', atMs: n, audioMs: HOUR, ...fields });

/** Recorded before the totals existed: rows with their charges as the ledger had figured them. */
const OLD_ROWS = [
  usageEventRow(event(1, {}), { overageMs: 0, costMicros: 0 }),
  usageEventRow(event(2, { audioMs: 2 * HOUR }), { overageMs: HOUR, costMicros: 300_000 }),
  usageEventRow(event(3, { route: 'realtime', audioMs: HOUR / 2 }), { overageMs: 0, costMicros: 0 }),
  usageEventRow(event(4, { keyId: 'key_b', route: 'inline', audioMs: HOUR }), { overageMs: HOUR, costMicros: 450_000 }),
  usageEventRow(event(5, { period: '2026-09', audioMs: 5 * HOUR }), { overageMs: 4 * HOUR, costMicros: 1_200_000 }),
  usageEventRow(event(6, { tenant: 'beta', keyId: 'key_z', audioMs: 7 * HOUR }), { overageMs: 0, costMicros: 0 }),
];

async function checkUpgraded(t: Test, ledger: UsageLedger, insertRaw: (row: UsageEventRow) => Promise<unknown>) {
  t.same(await ledger.periodTotals('2026-10'), [
    { tenant: 'acme', pool: 'batch', audioMs: 4 * HOUR, overageMs: 2 * HOUR, costMicros: 750_000 },
    { tenant: 'acme', pool: 'realtime', audioMs: HOUR / 2, overageMs: 0, costMicros: 0 },
    { tenant: 'beta', pool: 'batch', audioMs: 7 * HOUR, overageMs: 0, costMicros: 0 },
  ]);
  t.same(
    await ledger.standing('acme', 'key_a', '2026-10'),
    {
      tenantUsedMs: { batch: 4 * HOUR, realtime: HOUR / 2 },
      keyPeriodCostMicros: 300_000,
      keyLifetimeCostMicros: 1_500_000,
    },
    "the tenant's pools shared by its keys; the key's charges this period and ever",
  );
  t.same(await ledger.standing('acme', 'key_b', '2026-10'), {
    tenantUsedMs: { batch: 4 * HOUR, realtime: HOUR / 2 },
    keyPeriodCostMicros: 450_000,
    keyLifetimeCostMicros: 450_000,
  });
  t.same((await ledger.standing('beta', 'key_z', '2026-10')).tenantUsedMs, { batch: 7 * HOUR, realtime: 0 });
  // The next event is charged from the filled totals: 4 h used of 4 h included, so all of it is beyond.
  t.ok(await ledger.record(event(7, { audioMs: HOUR }), { includedMs: 4 * HOUR, priceMicrosPerHour: 300_000 }));
  t.same(await ledger.standing('acme', 'key_a', '2026-10'), {
    tenantUsedMs: { batch: 5 * HOUR, realtime: HOUR / 2 },
    keyPeriodCostMicros: 600_000,
    keyLifetimeCostMicros: 1_800_000,
  });
  // A writer of the previous version inserts the row alone: the database adds it to the totals.
  await insertRaw(usageEventRow(event(8, { route: 'realtime', audioMs: HOUR }), { overageMs: HOUR, costMicros: 450_000 }));
  t.same(await ledger.standing('acme', 'key_a', '2026-10'), {
    tenantUsedMs: { batch: 5 * HOUR, realtime: 1.5 * HOUR },
    keyPeriodCostMicros: 1_050_000,
    keyLifetimeCostMicros: 2_250_000,
  });
}

const INSERT = `INSERT INTO usage_events (${USAGE_EVENT_COLUMNS.join(', ')}) VALUES (${USAGE_EVENT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

t.test('SQLite: migration 8 fills the totals from the events', async (t) => {
  const file = join(t.testdir(), 'svc-stt.db');
  const old = new BetterSqlite3(file);
  runMigrations(
    old,
    SQLITE_MIGRATIONS.filter((m) => m.version < 8),
  );
  const insert = old.prepare(INSERT.replace(/\$\d+/g, '?'));
  for (const row of OLD_ROWS) insert.run(...USAGE_EVENT_COLUMNS.map((c) => row[c]));
  old.close();
  const db = openDatabase(file);
  t.teardown(() => db.close());
  const raw = db.prepare(INSERT.replace(/\$\d+/g, '?'));
  await checkUpgraded(t, new KyselyUsageLedger(sqliteStoreDb(db)), async (row) => raw.run(...USAGE_EVENT_COLUMNS.map((c) => row[c])));
});

t.test('PostgreSQL: migration 6 fills the totals from the events', async (t) => {
  const url = await (await sharedPostgres()).createDatabase();
  const old = await openPostgres(url, { migrations: PG_MIGRATIONS.filter((m) => m.version < 6) });
  for (const row of OLD_ROWS)
    await old.query(
      INSERT,
      USAGE_EVENT_COLUMNS.map((c) => row[c]),
    );
  await old.close();
  const db = await openPostgres(url);
  t.teardown(() => db.close());
  await checkUpgraded(t, new KyselyUsageLedger(postgresStoreDb(db)), (row) =>
    db.query(
      INSERT,
      USAGE_EVENT_COLUMNS.map((c) => row[c]),
    ),
  );
});
