// Opens the service's SQLite database: the one place that decides durability and locking settings.
import { closeSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';

import type { Database } from 'better-sqlite3';
import BetterSqlite3 from 'better-sqlite3';

import { makePrivateDir, PRIVATE_FILE_MODE } from '../private-mode.js';
import { runMigrations } from './migrations.js';

export type { Database } from 'better-sqlite3';

export const DATABASE_FILE_NAME = 'svc-stt.db';

/** How long a statement waits for another connection's write lock before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/** The database file inside a data folder; the server and the admin CLI both open this one. */
export function databasePath(dataDir: string): string {
  return join(dataDir, DATABASE_FILE_NAME);
}

export function openDatabase(file: string): Database {
  const inMemory = file === ':memory:';
  if (!inMemory) {
    makePrivateDir(dirname(file));
    // SQLite would create the file 0644; created here first it is 0600, and SQLite gives its -wal
    // and -shm files the mode of the database file.
    closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  }
  const db = new BetterSqlite3(file);
  try {
    // WAL lets the CLI read while the server writes; synchronous=FULL syncs the WAL on every commit,
    // so a committed job row survives power loss (NORMAL would only survive a process crash).
    if (!inMemory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new Error(`${file}: could not switch to WAL journal mode (got '${String(mode)}')`);
    }
    db.pragma('synchronous = FULL');
    // Deleted rows are zeroed in their pages rather than left in free space: a deleted voice's
    // profile, say. The WAL's older images of those pages are kysely/scrub-deleted.ts's to clear.
    db.pragma('secure_delete = ON');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    runMigrations(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
