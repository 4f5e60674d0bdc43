// A fresh store database on SQLite and on PostgreSQL, with a dump of the tables that hold content, for
// the tests of sealing at rest (a phrase planted in content must appear in no row).
import type { Test } from 'tap';

import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import type { StoreDb } from '../../src/store/kysely/store-schema.js';
import { postgresDatabases, sqliteDatabases } from '../store/contract/store-databases.js';

const CONTENT_TABLES = ['jobs', 'idempotency_records', 'voice_profiles', 'key_dictionaries'];

export interface SealedDatabase {
  db: StoreDb;
  /** Every row of the content tables, as JSON text. */
  dump(): Promise<string>;
  close(): Promise<void>;
}

export const SEALED_DATABASES: Record<string, (t: Test) => Promise<SealedDatabase>> = {
  SQLite: async (t) => {
    const databases = await sqliteDatabases(t);
    const raw = databases.db;
    const dump = async () => JSON.stringify(CONTENT_TABLES.map((table) => raw.prepare(`SELECT * FROM ${table}`).all()));
    return { db: sqliteStoreDb(raw), dump, close: databases.close };
  },
  PostgreSQL: async () => {
    const databases = await postgresDatabases();
    const raw = databases.db;
    const dump = async () => JSON.stringify(await Promise.all(CONTENT_TABLES.map(async (table) => (await raw.query(`SELECT * FROM ${table}`)).rows)));
    return { db: postgresStoreDb(raw), dump, close: databases.close };
  },
};
