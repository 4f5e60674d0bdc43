// The cases of the fault matrix (issue 49), by name, for the fault tests and `bench faults`. Most
// stand on one shared scaled-out cluster (FAULT_CASES): how each takes its dependency away and brings
// it back, and which requests cannot be served meanwhile (those must all get 503); the cluster must
// have been started with `faultProxies`, and on `postgres` (a server the case may restart). The rest
// need a shape of their own, which the case starts and stops (OWN_SHAPE_CASES): the embedded
// default on a disk that fills up, a cluster with a worker whose clock runs ahead.
import type { Test } from 'tap';

import { runClockAheadCase } from './clock-skew-case.js';
import { runDiskFullCase } from './disk-full-case.js';
import { clusterTarget } from './fault-ledgers.js';
import { assertSurvived, type Fault, type FaultCaseOptions, type FaultCaseReport, type RequestKind, runFaultCase } from './fault-scenario.js';
import type { PostgresServer } from './postgres-server.js';
import { type ScaleOutCluster, startScaleOutCluster } from './scale-out-cluster.js';

export interface FaultCase {
  /** Which requests need the missing dependency. */
  needed: readonly RequestKind[];
  fault(cluster: ScaleOutCluster, postgres: PostgresServer): Fault;
}

/** Nothing is served without the database. */
const EVERYTHING: readonly RequestKind[] = ['poll', 'result', 'inline', 'create'];
/** Without the bucket only a stored result cannot be read; the rest lives in the database or in memory. */
const RESULTS: readonly RequestKind[] = ['result'];

const proxyCut = (link: 'database' | 'bucket', mode: 'refuse' | 'blackhole') => (cluster: ScaleOutCluster) => {
  const proxy = cluster.proxies![link];
  return { down: async () => proxy.cut(mode), up: () => proxy.restore() };
};

export type FaultCaseName = 'database-refused' | 'database-blackhole' | 'database-restart' | 'bucket-refused' | 'bucket-blackhole' | 'bucket-restart';

export const FAULT_CASES: Readonly<Record<FaultCaseName, FaultCase>> = {
  /** Every connection to PostgreSQL closed, new ones refused (the server or its host gone). */
  'database-refused': { needed: EVERYTHING, fault: proxyCut('database', 'refuse') },
  /** Every connection to PostgreSQL closed, new ones never answered (a network that drops packets). */
  'database-blackhole': { needed: EVERYTHING, fault: proxyCut('database', 'blackhole') },
  /** PostgreSQL stopped with a fast shutdown, then started again (a minor-version update). */
  'database-restart': { needed: EVERYTHING, fault: (_cluster, postgres) => ({ down: () => postgres.stop(), up: () => postgres.start() }) },
  /** Every connection to the bucket closed, new ones refused. */
  'bucket-refused': { needed: RESULTS, fault: proxyCut('bucket', 'refuse') },
  /** Every connection to the bucket closed, new ones never answered. */
  'bucket-blackhole': { needed: RESULTS, fault: proxyCut('bucket', 'blackhole') },
  /** The S3 server itself stopped, then started again on its data. */
  'bucket-restart': { needed: RESULTS, fault: (cluster) => ({ down: () => cluster.s3.stop(), up: () => cluster.s3.start() }) },
};

export type OwnShapeCaseName = 'disk-full' | 'clock-ahead';

export interface OwnShapeCase {
  needed: readonly RequestKind[];
  /** Starts the shape, runs the case on it, stops it; `postgres` for a cluster (else the process's shared server). */
  run(postgres: PostgresServer | undefined, options: FaultCaseOptions): Promise<FaultCaseReport>;
}

export const OWN_SHAPE_CASES: Readonly<Record<OwnShapeCaseName, OwnShapeCase>> = {
  /**
   * The embedded default's data folder full (a tmpfs): small writes may still land in SQLite's free
   * pages, so no kind must fail; the case checks that those needing room did (disk-full-case.ts).
   */
  'disk-full': { needed: [], run: (_postgres, options) => runDiskFullCase(options) },
  /** A worker two minutes ahead of the others and the database: nothing is refused, nothing runs twice. */
  'clock-ahead': { needed: [], run: (postgres, options) => runClockAheadCase(postgres, options) },
};

/**
 * A test per case, on one scaled-out cluster (an api process and two workers behind fault proxies)
 * on `postgres`, its jobs asking for webhooks: short outages and few jobs, the bench's cases at test size.
 */
export async function testFaultCases(t: Test, postgres: PostgresServer, cases: ReadonlyArray<[FaultCaseName, string]>): Promise<void> {
  const cluster = await startScaleOutCluster({
    workers: 2,
    postgres,
    faultProxies: true,
    webhooks: true,
    env: { SVC_JOB_CHUNK_SECONDS: '5', SVC_INSTANCE_TTL_MS: '3000' },
  });
  t.teardown(() => cluster.close());
  for (const [name, title] of cases) {
    t.test(`${title}: 503s, then every job exactly once`, async (t) => {
      const { fault, needed } = FAULT_CASES[name];
      assertSurvived(t, await runFaultCase(clusterTarget(cluster), fault(cluster, postgres), { jobs: 2, outageMs: 5_000 }), needed);
    });
  }
}
