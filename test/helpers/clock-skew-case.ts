// The fault matrix's clock case (issue 49): a scaled-out cluster (an api process and two workers on
// PostgreSQL and S3) in which one worker's wall clock runs two minutes ahead: libfaketime preloaded
// into that process only (FAKETIME=+2m). Node's Date.now and timers honour it; the monotonic clock is
// left alone (FAKETIME_DONT_FAKE_MONOTONIC=1), as on a machine whose NTP is off: Node runs either way.
// Leases and heartbeats are times one process writes and another compares: judged by each process's
// own clock, the skewed worker saw every lease and heartbeat of the others as expired and took their
// running jobs. Beyond the common expectations (every job exactly once, no 5xx, nobody exits), the
// case checks from the processes' job audit lines that no chunk was claimed twice and that the skewed
// worker did take work (else it proved nothing), that no process was declared dead by another, and
// that the skewed worker noticed its clock against the database's.
import { existsSync } from 'node:fs';

import { clusterTarget } from './fault-ledgers.js';
import { type Fault, type FaultCaseOptions, type FaultCaseReport, runFaultCase } from './fault-scenario.js';
import type { PostgresServer } from './postgres-server.js';
import { startScaleOutCluster } from './scale-out-cluster.js';
import type { ServeProcess } from './serve-process.js';

const SKEW = '+2m';
const SKEW_MS = 120_000;
const LIBFAKETIME = `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/faketime/libfaketime.so.1`;

/** The environment that runs a process two minutes ahead; throws, saying what to install, without libfaketime. */
export function skewedClockEnv(): Record<string, string> {
  if (!existsSync(LIBFAKETIME)) throw new Error(`${LIBFAKETIME} is missing: install libfaketime (Debian: apt-get install faketime)`);
  return { LD_PRELOAD: LIBFAKETIME, FAKETIME: SKEW, FAKETIME_DONT_FAKE_MONOTONIC: '1' };
}

/** The chunks a process claimed, from its `job.claimed` audit lines: the job and how far it had got. */
function claims(process_: ServeProcess): string[] {
  const found: string[] = [];
  for (const line of process_.stdout().split('\n')) {
    if (!line.includes('"job.claimed"')) continue;
    try {
      const record = JSON.parse(line) as { jobId: string; chunkIndex: number; completedAudioSeconds: number };
      found.push(`${record.jobId}@${record.completedAudioSeconds}s#${record.chunkIndex}`);
    } catch {
      // The last line, still being written.
    }
  }
  return found;
}

function skewedWorker(processes: () => ServeProcess[], skewed: ServeProcess): Fault {
  return {
    // The skew lasts the whole case; the "fault" is the window in which requests are counted.
    down: async () => {},
    up: async () => {},
    detectable: false,
    verify: async () => {
      const failures: string[] = [];
      const all = processes().flatMap(claims);
      const twice = all.filter((claim, i) => all.indexOf(claim) !== i);
      if (twice.length > 0) failures.push(`chunks claimed twice: ${twice.join(', ')}`);
      if (claims(skewed).length === 0) failures.push('the skewed worker claimed nothing: the case proved nothing');
      const declaredDead = processes().filter((p) => p.stdout().includes('declared dead by another')).length;
      if (declaredDead > 0) failures.push(`${declaredDead} processes were declared dead by another`);
      const offset = /"offsetMs":(-?\d+)[^\n]*differs from the database server's/.exec(skewed.stdout());
      if (!offset || Math.abs(Number(offset[1]) + SKEW_MS) > 5_000)
        failures.push(`the skewed worker did not measure its clock ${SKEW_MS} ms ahead (${offset?.[1] ?? 'no line'})`);
      return failures;
    },
  };
}

/** Starts the cluster with its second worker two minutes ahead, runs the case, and stops it. */
export async function runClockAheadCase(postgres: PostgresServer | undefined, options: FaultCaseOptions): Promise<FaultCaseReport> {
  const cluster = await startScaleOutCluster({
    workers: 2,
    ...(postgres ? { postgres } : {}),
    // Info: the job audit lines say who claimed which chunk. Short chunks: a job is claimed once a chunk.
    env: { SVC_JOB_CHUNK_SECONDS: '5', SVC_INSTANCE_TTL_MS: '3000', SVC_LOG_LEVEL: 'info' },
    workerEnv: [{}, skewedClockEnv()],
  });
  try {
    const processes = () => [cluster.api, ...cluster.workers];
    return await runFaultCase(clusterTarget(cluster), skewedWorker(processes, cluster.workers[1]), options);
  } finally {
    await cluster.close();
  }
}
