// One lock per SQLite database file in this process, held from Kysely's acquiring a connection to
// its releasing it (a statement, or a whole `immediate` transaction). better-sqlite3 is synchronous:
// a statement on a second connection to the file, run while the first holds the write lock across
// an await, would sleep in the busy handler with the event loop stopped, so the first could never
// commit. Waiting here instead lets it finish. Between processes SQLite's own lock (and its busy
// timeout) still decides, as before. An in-memory database is its own file.
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';

import type { DatabaseConnection, Driver, TransactionSettings } from 'kysely';

import type { Database } from '../sqlite/database.js';

export class FileLock {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves, once every earlier holder has released, to the function that releases this hold. */
  acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    const turn = this.tail.then(() => release);
    this.tail = this.tail.then(() => held);
    return turn;
  }
}

const ofFile = new Map<string, FileLock>();
const ofMemory = new WeakMap<Database, FileLock>();

export function lockOfFile(db: Database): FileLock {
  if (db.memory) {
    const lock = ofMemory.get(db) ?? new FileLock();
    ofMemory.set(db, lock);
    return lock;
  }
  // The file itself, not the path it was opened by: a data folder reached through a link is one file.
  const file = existsSync(db.name) ? realpathSync(db.name) : resolve(db.name);
  const lock = ofFile.get(file) ?? new FileLock();
  ofFile.set(file, lock);
  return lock;
}

/** `driver` with its connection held under `lock` as well as under its own. */
export function fileLockedDriver(driver: Driver, lock: FileLock): Driver {
  const releases = new Map<DatabaseConnection, () => void>();
  return {
    init: () => driver.init(),
    acquireConnection: async () => {
      const release = await lock.acquire();
      try {
        const connection = await driver.acquireConnection();
        releases.set(connection, release);
        return connection;
      } catch (error) {
        release();
        throw error;
      }
    },
    releaseConnection: async (connection: DatabaseConnection) => {
      try {
        await driver.releaseConnection(connection);
      } finally {
        releases.get(connection)?.();
        releases.delete(connection);
      }
    },
    beginTransaction: (connection: DatabaseConnection, settings: TransactionSettings) => driver.beginTransaction(connection, settings),
    commitTransaction: (connection: DatabaseConnection) => driver.commitTransaction(connection),
    rollbackTransaction: (connection: DatabaseConnection) => driver.rollbackTransaction(connection),
    destroy: () => driver.destroy(),
  };
}
