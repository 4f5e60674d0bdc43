// The bucket goes away mid-load (issue 49), on an api process and two workers: every process
// reaches S3 through a TCP proxy of the test's, which cuts every connection and refuses new ones for
// a few seconds while jobs run and requests keep arriving; then the S3 server itself stops a while.
// Reading a stored result gets 503 with Retry-After (never 500, never a hang) while what needs no
// bucket is still served, /readyz says not ready and then ready again, every job accepted before
// the fault succeeds exactly once (one result, billed once), and no process exits.
import t from 'tap';

import { type FaultCaseName, testFaultCases } from '../helpers/fault-cases.js';
import { sharedPostgres } from '../helpers/postgres-server.js';

const postgres = await sharedPostgres();
const cases: Array<[FaultCaseName, string]> = [
  ['bucket-refused', 'connections cut and refused for 5 s mid-load'],
  // Behind the proxy, which still accepts and then closes: what a load balancer in front of it does.
  ['bucket-restart', 'the S3 server stopped for 5 s mid-load'],
];
await testFaultCases(t, postgres, cases);
