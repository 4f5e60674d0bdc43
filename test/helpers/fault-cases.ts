// The cases of the fault matrix that stand on the scaled-out cluster (issue 49), by name, for the
// outage tests and `bench faults`: how each takes its dependency away and brings it back, and which
// requests cannot be served meanwhile (those must all get 503). The cluster must have been started
// with `faultProxies`, and on `postgres` (a server the case may restart).
import type { Fault, RequestKind } from './fault-scenario.js';
import type { PostgresServer } from './postgres-server.js';
import type { ScaleOutCluster } from './scale-out-cluster.js';

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
