// A read-then-write transition as one transaction, written once for both databases. `work` must run
// every statement on the handle it is given (on SQLite the root instance would wait forever for the
// connection the transaction holds).
//
// SQLite: `begin immediate` on the instance's one connection takes the write lock before the first
// read, so what the transaction reads is still true when it writes (Kysely's own transaction is
// deferred: two readers could both decide, and one fail to write). PostgreSQL: a READ COMMITTED
// transaction; the statements take the row, table or advisory locks their transition needs
// (FOR UPDATE and the like, behind `onPostgresDb`), as the hand-written stores did.
import { sql } from 'kysely';

import { onPostgresDb } from './store-db.js';
import type { StoreDb } from './store-schema.js';

/** Connections inside an `immediate` now: a nested one would roll back the outer transaction. */
const inTransaction = new WeakSet<StoreDb>();

export async function immediate<T>(db: StoreDb, work: (trx: StoreDb) => Promise<T>): Promise<T> {
  if (inTransaction.has(db)) throw new Error('immediate() inside a transaction: pass the transaction handle to its statements instead');
  if (onPostgresDb(db)) return postgresTransaction(db, work);
  return db.connection().execute(async (connection) => {
    inTransaction.add(connection);
    await sql`begin immediate`.execute(connection);
    try {
      const result = await work(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      // SQLite may have rolled back already (some errors end the transaction): the error that
      // says why is `error`, not the rollback's "no transaction is active".
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    } finally {
      inTransaction.delete(connection);
    }
  });
}

/**
 * Kysely's transaction, except that the error which ended `work` is the one thrown: Kysely throws a
 * failed ROLLBACK's error in its place, which would turn a refusal into an outage and hide the cause.
 */
async function postgresTransaction<T>(db: StoreDb, work: (trx: StoreDb) => Promise<T>): Promise<T> {
  let failure: { error: unknown } | null = null;
  try {
    return await db.transaction().execute(async (trx) => {
      try {
        return await work(trx);
      } catch (error) {
        failure = { error };
        throw error;
      }
    });
  } catch (error) {
    throw failure ? (failure as { error: unknown }).error : error;
  }
}
