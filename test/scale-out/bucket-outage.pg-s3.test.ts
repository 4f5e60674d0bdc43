// The bucket goes away mid-load (issue 49), on an api process and two workers: every process
// reaches S3 through a TCP proxy of the test's, which cuts every connection and refuses new ones for
// a few seconds while jobs run and requests keep arriving; then the S3 server itself stops a while. Reading a stored result gets 503 with
// Retry-After (never 500, never a hang) while what needs no bucket is still served, /readyz says not
// ready and then ready again, every job accepted before the fault succeeds exactly once (one
// result, billed once), and no process exits.
import t from 'tap';

import { FAULT_CASES, type FaultCaseName } from '../helpers/fault-cases.js';
import { assertSurvived, runFaultCase } from '../helpers/fault-scenario.js';
import { sharedPostgres } from '../helpers/postgres-server.js';
import { startScaleOutCluster } from '../helpers/scale-out-cluster.js';

const postgres = await sharedPostgres();
const cluster = await startScaleOutCluster({ workers: 2, postgres, faultProxies: true, env: { SVC_JOB_CHUNK_SECONDS: '5', SVC_INSTANCE_TTL_MS: '3000' } });
t.teardown(() => cluster.close());

const cases: Array<[FaultCaseName, string]> = [
  ['bucket-refused', 'connections cut and refused for 5 s mid-load'],
  // Behind the proxy, which still accepts and then closes: what a load balancer in front of it does.
  ['bucket-restart', 'the S3 server stopped for 5 s mid-load'],
];
for (const [name, title] of cases) {
  t.test(`${title}: 503s, then every job exactly once`, async (t) => {
    const { fault, needed } = FAULT_CASES[name];
    assertSurvived(t, await runFaultCase(cluster, fault(cluster, postgres), { jobs: 2, outageMs: 5_000 }), needed);
  });
}
