// bench faults: the fault matrix's cases (issue 49). Most stand on the scaled-out shape: an api
// process and two workers on PostgreSQL and S3, each dependency reached through a TCP fault proxy.
// Each case sets jobs running, takes a dependency away for --outage-seconds while requests keep
// arriving (readiness probes, polls, result reads, inline transcriptions, job creations, each with a
// 20 s client deadline), brings it back, and counts: the answers during the fault, jobs accepted,
// succeeded, lost and billed twice, results not served whole, result objects left behind by retried
// steps (not served; the orphan sweep's), and the time until every process is ready again
// (test/helpers/fault-scenario.ts; the tests run the same cases with a 5 s outage). Two start a shape
// of their own: disk-full (the embedded default on a tmpfs it fills; needs root to mount) and
// clock-ahead (a cluster with one worker two minutes ahead under libfaketime; the fault lasts the
// whole case, --outage-seconds is the window of counted requests). Every job asks for a webhook: one
// signed success event per job, none twice. The kill cases SIGKILL an api process mid-way through a
// 90 MB direct upload (the route's cap is 100,000,000 bytes) and after the first event of a streamed
// answer, then restart it; and the embedded default (SQLite, local disk) mid-way through a 200 MB job
// upload (test/helpers/kill-scenario.ts; the tests cut 16 and 32 MB).
//   npm run bench -- faults [--outage-seconds 30] [--jobs 6] [--cases database-refused,disk-full,api-kill-stream,...]
import { FAULT_CASES, type FaultCaseName, OWN_SHAPE_CASES, type OwnShapeCaseName } from '../test/helpers/fault-cases.js';
import { clusterTarget } from '../test/helpers/fault-ledgers.js';
import { faultCaseFailures, type FaultCaseReport, runFaultCase } from '../test/helpers/fault-scenario.js';
import {
  type ApiKillPoint,
  KILL_CASES,
  killCaseFailures,
  type KillCaseName,
  type KillCaseReport,
  runApiKillCase,
  runEmbeddedUploadKill,
} from '../test/helpers/kill-scenario.js';
import { startPostgres } from '../test/helpers/postgres-server.js';
import { startScaleOutCluster } from '../test/helpers/scale-out-cluster.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, printResult, printTable, round } from './lib-report.js';
import { trustTestCertificateAuthority } from './lib-test-ca.js';

type CaseName = FaultCaseName | OwnShapeCaseName;

export async function run(args: string[]): Promise<void> {
  const outageSeconds = Number(flag(args, 'outage-seconds', '30'));
  const jobs = Number(flag(args, 'jobs', '6'));
  const known = [...Object.keys(FAULT_CASES), ...Object.keys(OWN_SHAPE_CASES), ...Object.keys(KILL_CASES)];
  const names = flag(args, 'cases', known.join(',')).split(',');
  for (const name of names) if (!known.includes(name)) throw new Error(`no case ${name}: ${known.join(', ')}`);
  const onCluster = names.filter((name): name is FaultCaseName => name in FAULT_CASES);
  const onOwnShape = names.filter((name): name is OwnShapeCaseName => name in OWN_SHAPE_CASES);
  const kills = names.filter((name): name is KillCaseName => name in KILL_CASES);

  // The service processes post webhooks to the receiver's test certificate (they inherit the trust).
  trustTestCertificateAuthority();
  // A server of the bench's own, which the restart case stops and starts.
  const postgres = await startPostgres();
  const results: Array<{ name: CaseName; report: FaultCaseReport; failures: string[] }> = [];
  const killed: Array<{ name: KillCaseName; report: KillCaseReport; failures: string[] }> = [];
  try {
    const clusterKills = kills.filter((name) => KILL_CASES[name] !== 'embedded');
    if (onCluster.length > 0 || clusterKills.length > 0) {
      const env = { SVC_JOB_CHUNK_SECONDS: '5', SVC_INSTANCE_TTL_MS: '3000' };
      const cluster = await startScaleOutCluster({ workers: 2, postgres, faultProxies: true, webhooks: true, env });
      try {
        for (const name of onCluster) {
          const { fault, needed } = FAULT_CASES[name];
          const report = await runFaultCase(clusterTarget(cluster), fault(cluster, postgres), { jobs, outageMs: outageSeconds * 1000 });
          results.push({ name, report, failures: faultCaseFailures(report, needed) });
        }
        // The victim answers on the tiny model on one thread, so a streamed answer lasts long enough to be cut.
        let victim = clusterKills.length > 0 ? await cluster.addApi({ SVC_MODEL: await testModelPath('tiny'), SVC_THREADS_PER_WORKER: '1' }) : null;
        for (const name of clusterKills) {
          const ran = await runApiKillCase(cluster, victim!, KILL_CASES[name] as ApiKillPoint, { uploadBytes: 90_000_000 });
          victim = ran.restarted;
          killed.push({ name, report: ran.report, failures: killCaseFailures(ran.report) });
        }
      } finally {
        await cluster.close();
      }
    }
    for (const name of onOwnShape) {
      const { run: runCase, needed } = OWN_SHAPE_CASES[name];
      const report = await runCase(postgres, { jobs, outageMs: outageSeconds * 1000 });
      results.push({ name, report, failures: faultCaseFailures(report, needed) });
    }
    for (const name of kills.filter((name) => KILL_CASES[name] === 'embedded')) {
      const report = await runEmbeddedUploadKill({ uploadBytes: 200_000_000 });
      killed.push({ name, report, failures: killCaseFailures(report) });
    }
  } finally {
    await postgres.destroy();
  }

  const answers = (byKind: FaultCaseReport['duringFault']) => {
    const tally: Record<string, number> = {};
    for (const [kind, byStatus] of Object.entries(byKind)) {
      if (kind === 'readyz') continue;
      for (const [status, n] of Object.entries(byStatus)) tally[status] = (tally[status] ?? 0) + n;
    }
    return Object.entries(tally)
      .sort()
      .map(([status, n]) => `${status}:${n}`)
      .join(' ');
  };
  printTable(
    [
      'case',
      'answered during the fault',
      'answered after it',
      'readyz 503',
      'accepted',
      'succeeded',
      'lost',
      'duplicated',
      'unreadable',
      'leftover objects',
      's to ready',
      's to jobs done',
      'survived',
    ],
    results.map(({ name, report, failures }) => [
      name,
      answers(report.duringFault),
      answers(report.afterFault),
      report.duringFault.readyz['503'] ?? 0,
      report.accepted,
      report.succeeded,
      report.lost,
      report.duplicated,
      report.unreadable,
      report.leftoverObjects,
      report.secondsToReady === null ? 'never' : round(report.secondsToReady, 2),
      round(report.secondsToEnd, 1),
      failures.length === 0 ? 'yes' : 'NO',
    ]),
  );
  if (killed.length > 0) {
    console.log('');
    printTable(
      [
        'case',
        'client saw',
        'MB spooled at kill',
        'spool left',
        'half jobs',
        'objects left',
        'charged',
        'accepted',
        'succeeded',
        'lost',
        'webhooks',
        'survived',
      ],
      killed.map(({ name, report }) => [
        name,
        report.client + (report.midStream === null ? '' : report.midStream ? ' mid-stream' : ' after the end'),
        report.spooledAtKill === null ? '-' : round(report.spooledAtKill / 1e6, 1),
        report.spoolLeft,
        report.halfJobs,
        report.bucketLeft,
        report.charged,
        report.accepted,
        report.succeeded,
        report.lost,
        report.webhooks ? `${report.succeeded - report.webhooks.missing} of ${report.succeeded}` : '-',
        killCaseFailures(report).length === 0 ? 'yes' : 'NO',
      ]),
    );
  }
  for (const { name, failures } of [...results, ...killed]) for (const failure of failures) console.log(`${name}: ${failure}`);
  const sum = (pick: (report: FaultCaseReport) => number) => results.reduce((total, { report }) => total + pick(report), 0);
  const sumKills = (pick: (report: KillCaseReport) => number) => killed.reduce((total, { report }) => total + pick(report), 0);
  const hung = sum((r) =>
    [...Object.values(r.duringFault), ...Object.values(r.afterFault)].reduce((n, byStatus) => n + (byStatus.timeout ?? 0) + (byStatus.error ?? 0), 0),
  );
  console.log(`\n${outageSeconds} s outages, ${jobs} jobs per case; bars: every case survives, 0 lost, 0 duplicated, 0 server errors, 0 hung`);
  printResult('faults', {
    cases: results.length + killed.length,
    survived: [...results, ...killed].filter((r) => r.failures.length === 0).length,
    lost: sum((r) => r.lost) + sumKills((r) => r.lost),
    duplicated: sum((r) => r.duplicated) + sumKills((r) => r.duplicated),
    server_errors: sum((r) => r.serverErrors),
    hung: hung + killed.filter((r) => r.report.client === 'timeout').length,
    missing_retry_after: sum((r) => r.missingRetryAfter),
    unbilled: sum((r) => r.unbilled),
    unreadable: sum((r) => r.unreadable),
    leftover_objects: sum((r) => r.leftoverObjects),
    exited: sum((r) => r.exited),
    webhooks_missing: sum((r) => r.webhooks?.missing ?? 0) + sumKills((r) => r.webhooks?.missing ?? 0),
    webhooks_duplicated: sum((r) => r.webhooks?.duplicated ?? 0) + sumKills((r) => r.webhooks?.duplicated ?? 0),
    webhooks_unsigned: sum((r) => r.webhooks?.unsigned ?? 0) + sumKills((r) => r.webhooks?.unsigned ?? 0),
    webhooks_redelivered: sum((r) => r.webhooks?.redelivered ?? 0) + sumKills((r) => r.webhooks?.redelivered ?? 0),
    kill_clients_cut: killed.filter((r) => r.report.client === 'cut').length,
    kill_left_behind: sumKills((r) => r.spoolLeft + r.halfJobs + r.bucketLeft),
    kill_charged: sumKills((r) => r.charged),
    max_seconds_to_ready: results.length === 0 ? null : round(Math.max(...results.map((r) => r.report.secondsToReady ?? Infinity)), 2),
    max_seconds_to_jobs_done: results.length === 0 ? null : round(Math.max(...results.map((r) => r.report.secondsToEnd)), 1),
    outage_seconds: outageSeconds,
    jobs_per_case: jobs,
    failed_cases: [...results, ...killed].filter((r) => r.failures.length > 0).map((r) => r.name),
  });
}
