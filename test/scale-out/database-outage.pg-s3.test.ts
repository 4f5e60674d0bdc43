// The database goes away mid-load (issue 49), on an api process and two workers: first every
// connection is cut and new ones refused for a few seconds (a TCP proxy of the test's between the
// processes and PostgreSQL), then the server itself is restarted (fast shutdown, then start), each
// while jobs run and requests keep arriving. Requests during the outage get 503 with Retry-After
// (never 500, never a hang), /readyz says not ready and then ready again, every job accepted before
// the fault succeeds exactly once (one result, billed once), and no process exits.
import t from 'tap';

import { type FaultCaseName, testFaultCases } from '../helpers/fault-cases.js';
import { startPostgres } from '../helpers/postgres-server.js';

// A server of this file's own: the restart must not touch a database another test uses.
const postgres = await startPostgres();
t.teardown(() => postgres.destroy());
const cases: Array<[FaultCaseName, string]> = [
  ['database-refused', 'connections cut and refused for 5 s mid-load'],
  ['database-restart', 'the server restarted mid-load'],
];
await testFaultCases(t, postgres, cases);
