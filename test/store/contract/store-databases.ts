// Fresh databases for the contract suites' harnesses, one per case: a SQLite file in the case's
// test dir, or a new database on this process's PostgreSQL cluster. `open()` gives another
// connection to the same database, as a second process would have; everything closes at close().
import { join } from 'node:path';
import type { Test } from 'tap';
import { openPostgres, type PostgresDatabase } from '../../../src/store/postgres/database.js';
import { openDatabase, type Database } from '../../../src/store/sqlite/database.js';
import { sharedPostgres } from '../../helpers/postgres-server.js';

export interface TestDatabases<D> {
  /** The first connection (SQLite) or pool (PostgreSQL). */
  db: D;
  /** Another one on the same database. */
  open(): Promise<D>;
  close(): Promise<void>;
}

export async function sqliteDatabases(t: Test): Promise<TestDatabases<Database>> {
  const file = join(t.testdir(), 'svc-stt.db');
  const opened: Database[] = [];
  const open = async () => {
    const db = openDatabase(file);
    opened.push(db);
    return db;
  };
  return {
    db: await open(),
    open,
    close: async () => {
      for (const db of opened.splice(0)) db.close();
    },
  };
}

export async function postgresDatabases(): Promise<TestDatabases<PostgresDatabase>> {
  const url = await (await sharedPostgres()).createDatabase();
  const opened: PostgresDatabase[] = [];
  const open = async () => {
    const db = await openPostgres(url, { pool: { max: 4 } });
    opened.push(db);
    return db;
  };
  return {
    db: await open(),
    open,
    close: async () => {
      await Promise.all(opened.splice(0).map((db) => db.close()));
    },
  };
}
