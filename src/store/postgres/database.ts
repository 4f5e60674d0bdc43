// Opens the service's PostgreSQL database (SVC_DATABASE_URL): the one place that decides pool
// settings and how values come back, and that runs the migrations before anything else touches it.
import type { PoolConfig, QueryResultRow } from 'pg';
import pg from 'pg';

import { StoreUnavailableError } from '../store-unavailable-error.js';
import { isConnectionFailure } from './connection-failure.js';
import { type Migration, MIGRATIONS, runMigrations } from './migrations.js';
import type { Queryable } from './queryable.js';

/** What a store runs statements on: the pool, or the client of a transaction. */
export interface PostgresDatabase extends Queryable {
  readonly pool: pg.Pool;
  /**
   * Runs `work` between BEGIN and COMMIT on one client of the pool; ROLLBACK when it throws (the
   * error is rethrown). The client always goes back to the pool, or is discarded if it broke.
   */
  transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T>;
  /** Ends the pool's connections; waits for checked-out clients to be released. Idempotent. */
  close(): Promise<void>;
}

export interface OpenPostgresOptions {
  /** Extra pool settings (size, timeouts); the connection string and type parsing are decided here. */
  pool?: Omit<PoolConfig, 'connectionString' | 'types'>;
  /** The schema steps to apply (tests pass their own). */
  migrations?: readonly Migration[];
  /**
   * Called when an idle pooled connection fails (the server restarted, the network dropped). The
   * pool has already discarded it and the next query opens a new one; without a listener the
   * process would crash, so the default ignores it.
   */
  onIdleError?: (error: Error) => void;
}

const INT8_OID = 20;
/**
 * How long a query waits for a connection before it fails as unavailable (pg's default is forever:
 * with the server down every request would hang instead of getting its 503).
 */
export const CONNECT_TIMEOUT_MS = 5_000;
/**
 * No statement here takes more than milliseconds; one unanswered for this long is on a connection
 * that died without a word (a half-open TCP connection), and fails as unavailable instead of
 * hanging its request. TCP keep-alive finds such connections between statements.
 */
export const QUERY_TIMEOUT_MS = 30_000;
/** Probes start after this much silence (the OS default is two hours). */
export const KEEP_ALIVE_DELAY_MS = 10_000;

export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<PostgresDatabase> {
  // Per pool, not pg.types: a library must not change how other code's pools parse values.
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8_OID, bigintAsNumber);
  const pool = new pg.Pool({
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
    ...options.pool,
    connectionString: url,
    types,
  });
  pool.on('error', options.onIdleError ?? (() => undefined));

  const transaction = async <T>(work: (client: Queryable) => Promise<T>): Promise<T> => {
    const client = await pool.connect().catch(rethrowAsUnavailable);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // A client that cannot roll back is in an unknown state: the pool must not hand it out again.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      rethrowAsUnavailable(error);
    } finally {
      client.release(broken);
    }
  };

  let closing: Promise<void> | null = null;
  const db: PostgresDatabase = {
    pool,
    query: <R extends QueryResultRow>(text: string, values?: unknown[]) => pool.query<R>(text, values).catch(rethrowAsUnavailable),
    transaction,
    close: () => (closing ??= pool.end()),
  };
  try {
    await transaction((client) => runMigrations(client, options.migrations ?? MIGRATIONS));
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** A connection failure becomes StoreUnavailableError (a 503 at the edge); any other error stays as it is. */
export function rethrowAsUnavailable(error: unknown): never {
  if (isConnectionFailure(error)) throw new StoreUnavailableError('database', { cause: error });
  throw error;
}

/**
 * BIGINT columns (times in ms, byte counts, count(*)) as JS numbers. Every value we store fits in
 * 2^53; one that does not fails its query rather than coming back rounded.
 */
function bigintAsNumber(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`the BIGINT ${text} is beyond JavaScript's exact integers`);
  return value;
}
