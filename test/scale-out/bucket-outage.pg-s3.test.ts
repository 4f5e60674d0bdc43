// The bucket goes away mid-load (issue 49), on an api process and two workers: every process
// reaches S3 through a TCP proxy of the test's, which cuts every connection and refuses new ones for
// a few seconds while jobs run and requests keep arriving. Requests during the outage get 503 with
// Retry-After (never 500, never a hang), /readyz says not ready and then ready again, every job
// accepted before the fault succeeds exactly once (one result, billed once), and no process exits.
import t from 'tap';

import { assertSurvived, runFaultCase } from '../helpers/fault-scenario.js';
import { startScaleOutCluster } from '../helpers/scale-out-cluster.js';

const JOBS = 4;

t.test('the bucket unreachable for a while mid-load: 503s, then every job exactly once', async (t) => {
  const cluster = await startScaleOutCluster({ workers: 2, faultProxies: true, env: { SVC_JOB_CHUNK_SECONDS: '5', SVC_INSTANCE_TTL_MS: '3000' } });
  t.teardown(() => cluster.close());
  const proxy = cluster.proxies!.bucket;
  assertSurvived(t, await runFaultCase(cluster, { down: async () => proxy.cut('refuse'), up: () => proxy.restore() }, { jobs: JOBS, outageMs: 5_000 }), JOBS, [
    'result',
  ]);
});
