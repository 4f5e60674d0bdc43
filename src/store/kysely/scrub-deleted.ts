// What deleting content that must not outlive its deletion (a voice's biometric profile) does beyond
// the DELETE. On SQLite every connection has secure_delete on (sqlite/database.ts), so the freed cells
// are zeroed in the pages; but the WAL still holds earlier images of those pages until it is
// checkpointed, and keeps them in the file until it is truncated: both done here. On PostgreSQL
// nothing here does as much: the row stays a dead tuple until (auto)vacuum, and the WAL, archives and
// backups keep copies: docs/OPERATIONS.md "Retention and deletion" says what is guaranteed.
import { sql } from 'kysely';

import { onPostgresDb } from './store-db.js';
import type { StoreDb } from './store-schema.js';

/**
 * Copies the WAL into the database file and truncates it, on SQLite. Waits (in SQLite's busy handler,
 * up to its busy timeout) for another process's reader; one still reading then leaves the WAL as it
 * is, whose old frames the next writes overwrite.
 */
export async function scrubDeleted(db: StoreDb): Promise<void> {
  if (onPostgresDb(db)) return;
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
}
