// bench fuzz: the long run of the adversarial suite's property-based fuzzing (test/adversarial/):
// seeded hostile requests against every route of a real `svc-stt serve` child process, every answer
// checked against the contract's invariants (no 5xx but documented 503s, the error envelope or S3
// XML, no echoed request content, always an answer), then the data folder checked for leftovers and
// the server's RSS and its collected heap (what JavaScript still holds; RSS also keeps what glibc's
// arenas hold free) against their baselines. Known, reported defects are counted apart.
//   npm run bench -- fuzz [--cases 10000] [--seed 14] [--concurrency 4]
import { startAdversarialServer } from '../test/adversarial/lib/adversarial-server.js';
import { runFuzz } from '../test/adversarial/lib/fuzz-runner.js';
import { flag, printResult, printTable, round } from './lib-report.js';

const MIB = 1024 * 1024;

export async function run(args: string[]): Promise<void> {
  const cases = Number(flag(args, 'cases', '10000'));
  const seed = Number(flag(args, 'seed', '14'));
  const concurrency = Number(flag(args, 'concurrency', '4'));
  const server = await startAdversarialServer();
  try {
    const report = await runFuzz(server, {
      seed,
      cases,
      concurrency,
      caseTimeoutMs: 60_000,
      warmupCases: 300,
      progress: (line) => console.error(`fuzz: ${line}`),
    });
    printTable(
      ['route', 'cases', 'mean ms'],
      Object.entries(report.byRoute)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([route, count]) => [route, count, Math.round(report.msByRoute[route] / count)]),
    );
    console.log('');
    printTable(
      ['status', 'answers'],
      Object.entries(report.byStatus).sort(([a], [b]) => a.localeCompare(b)),
    );
    console.log('');
    printTable(
      ['known defect', 'cases', 'example'],
      Object.entries(report.knownDefects).map(([id, { count, example }]) => [id, count, example.slice(0, 100)]),
    );
    console.log('');
    for (const failure of report.failures) console.log(`case ${failure.index}: ${failure.violation.invariant}: ${failure.violation.detail}\n  ${failure.spec}`);
    for (const file of report.leftovers) console.log(`left on disk: ${file}`);
    for (const route of report.uncatalogued) console.log(`fuzzed generically (no generator yet): ${route}`);
    const mb = (bytes: number) => round(bytes / MIB, 1);
    printTable(
      ['cases', 'seconds', 'cases/s', 'slowest ms', 'jobs', 'RSS base MiB', 'RSS peak MiB', 'RSS settled MiB', 'heap base MiB', 'heap settled MiB'],
      [
        [
          report.cases,
          round(report.seconds, 1),
          round(report.cases / report.seconds, 1),
          report.slowestCaseMs,
          report.jobs,
          mb(report.rss.baselineBytes),
          mb(report.rss.peakBytes),
          mb(report.rss.settledBytes),
          mb(report.heap.baselineBytes),
          mb(report.heap.settledBytes),
        ],
      ],
    );
    printResult('fuzz', {
      cases: report.cases,
      server_errors: report.counts.server_error,
      non_envelope: report.counts.non_envelope,
      crashes: report.crashed || !server.alive() ? 1 : 0,
      echoes: report.counts.echo,
      no_response: report.counts.no_response,
      known_defect_cases: Object.values(report.knownDefects).reduce((sum, d) => sum + d.count, 0),
      leftover_files: report.leftovers.length,
      rss_baseline_mb: mb(report.rss.baselineBytes),
      rss_peak_mb: mb(report.rss.peakBytes),
      rss_settled_mb: mb(report.rss.settledBytes),
      rss_growth_mb: mb(report.rss.settledBytes - report.rss.baselineBytes),
      heap_baseline_mb: mb(report.heap.baselineBytes),
      heap_settled_mb: mb(report.heap.settledBytes),
      heap_growth_mb: mb(report.heap.settledBytes - report.heap.baselineBytes),
      seconds: round(report.seconds, 1),
      seed,
    });
  } finally {
    await server.stop();
  }
}
