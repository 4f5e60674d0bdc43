// One Kysely instance over a database handle the process has already opened (sqlite/database.ts,
// postgres/database.ts): the stores on Kysely are written once and run on either. Nothing here
// opens, migrates or closes a database; the handle's owner still does, and the instance is never
// destroyed (Kysely's destroy would close the handle under the stores that still use it).
//
// One instance per handle, kept for the handle's life. On SQLite, Kysely serializes its statements
// (and a transaction's) through a lock of its own instance; here that lock is shared by every handle
// on the same database file in this process (sqlite-file-lock.ts), so a second connection in the
// same process waits its turn instead of blocking the event loop in SQLite's busy handler while the
// first holds the write lock across an await.
import { Kysely, PostgresAdapter, PostgresDialect, type PostgresPool, type PostgresPoolClient, SqliteDialect } from 'kysely';

import { isConnectionFailure } from '../postgres/connection-failure.js';
import type { PostgresDatabase } from '../postgres/database.js';
import { rethrowAsUnavailable } from '../postgres/database.js';
import type { Database } from '../sqlite/database.js';
import { fileLockedDriver, lockOfFile } from './sqlite-file-lock.js';
import type { StoreDb, StoreSchema } from './store-schema.js';

const onSqlite = new WeakMap<Database, StoreDb>();
const onPostgres = new WeakMap<PostgresDatabase, StoreDb>();

export function sqliteStoreDb(db: Database): StoreDb {
  let kysely = onSqlite.get(db);
  if (!kysely) {
    const lock = lockOfFile(db);
    const dialect = new SqliteDialect({ database: db });
    const createDriver = dialect.createDriver.bind(dialect);
    dialect.createDriver = () => fileLockedDriver(createDriver(), lock);
    kysely = new Kysely<StoreSchema>({ dialect });
    onSqlite.set(db, kysely);
  }
  return kysely;
}

export function postgresStoreDb(db: PostgresDatabase): StoreDb {
  let kysely = onPostgres.get(db);
  if (!kysely) {
    kysely = new Kysely<StoreSchema>({ dialect: new PostgresDialect({ pool: unavailableAware(db.pool) }) });
    onPostgres.set(db, kysely);
  }
  return kysely;
}

/**
 * Whether `db` (or a transaction or connection taken from it) runs on PostgreSQL: for the parts
 * written per dialect, such as row locks, that SQLite has no syntax for.
 */
export function onPostgresDb(db: StoreDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * The database's pool as Kysely takes it, failing as the database's own queries do: a connection
 * failure is StoreUnavailableError (a 503 at the edge), anything else stays as it is. `end` does
 * nothing: the pool is the PostgresDatabase's, which ends it on close.
 *
 * A client whose connection failed is never handed out again, as `pool.query` would ensure: pg
 * emits 'error' on a checked-out client whose socket dies (unheard, that event would end the
 * process), and a query that timed out leaves the client looking usable while its dead query still
 * blocks it. Either marks the client broken, and a broken client is destroyed on release.
 */
function unavailableAware(pool: PostgresDatabase['pool']): PostgresPool {
  return {
    connect: async () => {
      const client = await pool.connect().catch(rethrowAsUnavailable);
      let broken: Error | undefined;
      const onError = (error: Error) => (broken ??= error);
      client.on('error', onError);
      const wrapped = {
        query: (text: string, values: readonly unknown[]) =>
          client.query(text, [...values]).catch((error: unknown) => {
            if (isConnectionFailure(error)) broken ??= error as Error;
            return rethrowAsUnavailable(error);
          }),
        release: (destroy?: boolean) => {
          client.off('error', onError);
          client.release(broken ?? destroy);
        },
      };
      return wrapped as unknown as PostgresPoolClient;
    },
    end: async () => {},
  };
}
