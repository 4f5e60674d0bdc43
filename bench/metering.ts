// bench metering: what recording a unit of work costs, and how it grows with the tenant's events in
// the period. The ledger's record (in one transaction: the event seen already? the pool's sum so far,
// the charge, the insert) versus the same row inserted alone (the database's totals trigger fires for
// both), on a real SQLite file, as a tenant's period fills up. Alternating, medians of --records
// calls per size.
//   npm run bench -- metering [--records 300] [--sizes 0,10000,100000]
// No bar: the figure to watch is the ratio at a busy tenant's size (a month of one-minute realtime
// slices at 25 h is 1,500 events; 100,000 is a very busy tenant). Summing the events on every record
// measured 1.3x at 0 events, 6.7x at 10,000 and 43x (6 ms) at 100,000; the totals the database keeps
// (SQLite migration 8) keep it flat.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { KyselyUsageLedger } from '../src/store/kysely/kysely-usage-ledger.js';
import { sqliteStoreDb } from '../src/store/kysely/store-db.js';
import { openDatabase } from '../src/store/sqlite/database.js';
import { runMigrations } from '../src/store/sqlite/migrations.js';
import { type PoolTerms, USAGE_EVENT_COLUMNS, usageEventRow } from '../src/store/usage-record.js';
import { usageEvent } from '../test/helpers/usage-events.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

const PERIOD = '2026-11';
const TERMS: PoolTerms = { includedMs: 25 * 3_600_000, priceMicrosPerHour: 300_000 };

const event = (n: number, tenant = 'busy') =>
  usageEvent({ eventKey: `job:bench-${tenant}-${n}`, tenant, keyId: `key_${tenant}`, period: PERIOD, atMs: n, audioMs: 60_000 });

export async function run(args: string[]): Promise<void> {
  const records = Number(flag(args, 'records', '300'));
  const sizes = flag(args, 'sizes', '0,10000,100000').split(',').map(Number);
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-metering-'));
  const db = openDatabase(join(dir, 'bench.db'));
  try {
    runMigrations(db);
    const ledger = new KyselyUsageLedger(sqliteStoreDb(db));
    const insert = db.prepare(`INSERT INTO usage_events (${USAGE_EVENT_COLUMNS.join(', ')}) VALUES (${USAGE_EVENT_COLUMNS.map((c) => `@${c}`).join(', ')})`);
    const fill = db.transaction((from: number, to: number) => {
      for (let n = from; n < to; n++) insert.run(usageEventRow(event(n), { overageMs: 0, costMicros: 0 }));
    });
    const rows: Array<Array<string | number>> = [];
    const figures: Array<{ events: number; record_ms: number; insert_ms: number; ratio: number }> = [];
    let next = 0;
    for (const size of sizes) {
      fill(next, size);
      next = Math.max(next, size);
      const ours: number[] = [];
      const plain: number[] = [];
      for (let i = 0; i < records; i++) {
        // The yardstick's rows belong to another tenant, so the busy tenant's period keeps its size.
        const t0 = performance.now();
        await ledger.record(event(next + i), TERMS);
        ours.push(performance.now() - t0);
        const t1 = performance.now();
        insert.run(usageEventRow(event(next + i, 'plain'), { overageMs: 0, costMicros: 0 }));
        plain.push(performance.now() - t1);
      }
      next += records;
      const figure = { events: size, record_ms: round(median(ours), 4), insert_ms: round(median(plain), 4), ratio: round(median(ours) / median(plain), 2) };
      figures.push(figure);
      rows.push([size, figure.record_ms, figure.insert_ms, figure.ratio]);
    }
    printTable(["tenant's events in the period", 'record (ms, median)', 'insert alone (ms, median)', 'ratio'], rows);
    printResult('metering', { records, sizes: figures });
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
