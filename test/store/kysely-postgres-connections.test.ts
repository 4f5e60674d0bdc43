// The stores' PostgreSQL connections when the connection, not the statement, fails
// (src/store/kysely/store-db.ts): a statement whose server process dies is StoreUnavailableError and
// the process lives on (pg emits 'error' on the checked-out client; unheard, that ends the process),
// and a client whose statement timed out is not handed out again (its dead query would block every
// later one). Each case on a cluster of its own: killing or stopping a server process disturbs it.
import { sql } from 'kysely';
import t from 'tap';

import { postgresStoreDb } from '../../src/store/kysely/store-db.js';
import { openPostgres } from '../../src/store/postgres/database.js';
import { StoreUnavailableError } from '../../src/store/store-unavailable-error.js';
import { startPostgres } from '../helpers/postgres-server.js';

async function backendPid(db: ReturnType<typeof postgresStoreDb>): Promise<number> {
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
  return rows[0].pid;
}

t.test('a statement whose server process is killed: StoreUnavailableError, no crash, the next statement works', async (t) => {
  const server = await startPostgres();
  t.teardown(() => server.destroy());
  const database = await openPostgres(await server.createDatabase(), { pool: { max: 1 } });
  t.teardown(() => database.close());
  const db = postgresStoreDb(database);
  const pid = await backendPid(db);
  const sleeping = sql`select pg_sleep(30)`.execute(db);
  await new Promise((resolve) => setTimeout(resolve, 200));
  process.kill(pid, 'SIGKILL');
  await t.rejects(sleeping, StoreUnavailableError, 'the statement fails as an outage');
  // The server restarts its processes after one was killed: retry until it answers again.
  let answered: number | null = null;
  for (let attempt = 0; attempt < 50 && answered === null; attempt++) {
    answered = await backendPid(db).catch(() => null);
    if (answered === null) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  t.ok(answered !== null && answered !== pid, 'a new connection answers; this process is still here');
});

t.test('a statement that timed out: its client is dropped, so the next statement gets a live one', async (t) => {
  const server = await startPostgres();
  t.teardown(() => server.destroy());
  const database = await openPostgres(await server.createDatabase(), { pool: { max: 1, query_timeout: 800 } });
  t.teardown(() => database.close());
  const db = postgresStoreDb(database);
  const pid = await backendPid(db);
  // The server process stops answering: a half-open connection, as far as the client can tell.
  process.kill(pid, 'SIGSTOP');
  t.teardown(() => process.kill(pid, 'SIGCONT'));
  await t.rejects(backendPid(db), StoreUnavailableError, 'the timed-out statement is an outage');
  const next = await backendPid(db);
  t.not(next, pid, 'the next statement ran on a new connection, not behind the dead query');
});
