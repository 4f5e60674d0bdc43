// Fresh databases for the contract suites' harnesses, one per case: a SQLite file in the case's
// test dir, or a new database on this process's PostgreSQL cluster. `open()` gives another
// connection to the same database, as a second process would have; everything closes at close().
import { join } from 'node:path';

import type { Test } from 'tap';

import { openPostgres, type PostgresDatabase } from '../../../src/store/postgres/database.js';
import { type Database, openDatabase } from '../../../src/store/sqlite/database.js';
import { sharedPostgres } from '../../helpers/postgres-server.js';

export interface TestDatabases<D> {
  /** The first connection (SQLite) or pool (PostgreSQL). */
  db: D;
  /** Another one on the same database. */
  open(): Promise<D>;
  close(): Promise<void>;
}

export function sqliteDatabases(t: Test): Promise<TestDatabases<Database>> {
  const file = join(t.testdir(), 'svc-stt.db');
  return trackedDatabases(
    async () => openDatabase(file),
    async (db) => {
      db.close();
    },
  );
}

export async function postgresDatabases(): Promise<TestDatabases<PostgresDatabase>> {
  const url = await (await sharedPostgres()).createDatabase();
  return trackedDatabases(
    () => openPostgres(url, { pool: { max: 4 } }),
    (db) => db.close(),
  );
}

/** Connections opened by `openOne`, the first one at once, all closed together. */
async function trackedDatabases<D>(openOne: () => Promise<D>, closeOne: (db: D) => Promise<void>): Promise<TestDatabases<D>> {
  const opened: D[] = [];
  const open = async () => {
    const db = await openOne();
    opened.push(db);
    return db;
  };
  return {
    db: await open(),
    open,
    close: async () => {
      await Promise.all(opened.splice(0).map(closeOne));
    },
  };
}
