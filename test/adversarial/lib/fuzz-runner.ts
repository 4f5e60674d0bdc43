// Runs a seeded sample of fuzz cases against an AdversarialServer and checks the invariants on every
// answer; after the last case it lets every job the run created finish, then checks the data folder
// for leftovers and the server's memory against its baseline. Shared by the bounded test run and
// `npm run bench -- fuzz`, so both report the same figures.
import fc from 'fast-check';

import { recordCanary } from '../../helpers/test-logs.js';
import type { AdversarialServer } from './adversarial-server.js';
import { type BuildContext, buildRequest, localAddressFor } from './build-request.js';
import type { CaseSpec } from './case-spec.js';
import { VALID_JOB } from './cases/job-cases.js';
import { fuzzCase, uncatalogued } from './cases/route-catalogue.js';
import { CANARY_FILENAME_PREFIX } from './cases/transcription-cases.js';
import { loadFuzzFiles } from './fuzz-fixtures.js';
import { knownDefectOf } from './known-defects.js';
import { leftoverFiles } from './leftovers.js';
import { createJob } from './raw-client.js';
import { headerOf, type RawOutcome, requestLine, sendRaw } from './raw-http.js';
import { checkOutcome, type InvariantName, type Violation } from './response-invariants.js';

export interface FuzzRunOptions {
  seed: number;
  cases: number;
  /** Cases in flight at once. */
  concurrency: number;
  caseTimeoutMs: number;
  /** Cases run before the memory baseline is taken (lazy loading, first ffmpeg and engine runs). */
  warmupCases: number;
  progress?: (line: string) => void;
}

export interface CaseFailure {
  index: number;
  violation: Violation;
  spec: string;
}

export interface FuzzReport {
  seed: number;
  cases: number;
  seconds: number;
  byRoute: Record<string, number>;
  /** Wall time of the cases of each route, summed (cases overlap: not the run's time). */
  msByRoute: Record<string, number>;
  byStatus: Record<string, number>;
  /** Violations not explained by a known defect, by invariant. */
  counts: Record<InvariantName, number>;
  failures: CaseFailure[];
  /** Violations explained by a known defect (known-defects.ts), by defect id. */
  knownDefects: Record<string, { count: number; example: string }>;
  crashed: boolean;
  slowestCaseMs: number;
  jobs: number;
  rss: { baselineBytes: number; peakBytes: number; settledBytes: number };
  /** What the server's collected heap held at the baseline and after the run (collectGarbage). */
  heap: { baselineBytes: number; settledBytes: number };
  leftovers: string[];
  /** Documented operations without a generator of their own (fuzzed generically). */
  uncatalogued: string[];
}

interface TrackedJob {
  id: string;
  key: string;
  /** Its presigned form was accepted (204): the job holds audio until it is completed. */
  uploaded: boolean;
}

const FAILURE_EXAMPLES = 20;
/**
 * Uploaded jobs completed at the end of a run (each then transcribes its audio): enough to check
 * that ended jobs leave no audio behind, few enough not to make the run wait on the engine.
 */
const JOBS_COMPLETED_AT_END = 12;
const SPEC_PREVIEW = 600;

export async function runFuzz(server: AdversarialServer, options: FuzzRunOptions): Promise<FuzzReport> {
  const started = performance.now();
  const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const missing = uncatalogued(document.paths);
  const specs = fc.sample(fuzzCase(missing), { seed: options.seed, numRuns: options.cases });
  const files = await loadFuzzFiles();
  recordCanary('filename', CANARY_FILENAME_PREFIX);

  const report: FuzzReport = {
    seed: options.seed,
    cases: 0,
    seconds: 0,
    byRoute: {},
    msByRoute: {},
    byStatus: {},
    counts: { server_error: 0, non_envelope: 0, echo: 0, no_response: 0 },
    failures: [],
    knownDefects: {},
    crashed: false,
    slowestCaseMs: 0,
    jobs: 0,
    rss: { baselineBytes: 0, peakBytes: 0, settledBytes: 0 },
    heap: { baselineBytes: 0, settledBytes: 0 },
    leftovers: [],
    uncatalogued: missing,
  };
  const jobs: TrackedJob[] = [];
  const filesBefore = await server.dataFiles();
  // Sampled only while cases run: the collections' heap snapshots have peaks of their own.
  let peak = server.rssBytes();
  let sampling = true;
  const sampler = setInterval(() => {
    if (sampling && server.alive()) peak = Math.max(peak, server.rssBytes());
  }, 250);

  const runOne = async (spec: CaseSpec, index: number) => {
    try {
      await runCase(spec, index);
    } catch (error) {
      // Setting a case up (creating its job) fails once the server is gone: that is the crash.
      if (server.alive()) throw error;
      report.crashed = true;
    }
  };

  const runCase = async (spec: CaseSpec, index: number) => {
    const ctx: BuildContext = { keys: server.keys, webhookUrl: server.webhookUrl, files, host: server.host, job: null };
    let fresh: TrackedJob | null = null;
    if (spec.job === 'fresh') {
      // A job awaiting its upload, owned by the valid key: the target of upload and id-route cases.
      ctx.job = await createJob(server, VALID_JOB);
      fresh = { id: ctx.job.id, key: server.keys.valid, uploaded: false };
      jobs.push(fresh);
    }
    const request = buildRequest(spec, ctx);
    const outcome = await sendRaw(server.url, request, { timeoutMs: options.caseTimeoutMs, localAddress: localAddressFor(spec, index) });
    report.cases += 1;
    report.byRoute[spec.route] = (report.byRoute[spec.route] ?? 0) + 1;
    report.msByRoute[spec.route] = (report.msByRoute[spec.route] ?? 0) + outcome.elapsedMs;
    const status = outcome.kind === 'response' ? String(outcome.response.status) : outcome.kind;
    report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
    report.slowestCaseMs = Math.max(report.slowestCaseMs, outcome.elapsedMs);
    track(outcome, spec, jobs, server);
    if (fresh && outcome.kind === 'response' && outcome.response.status === 204) fresh.uploaded = true;
    const line = requestLine(request);
    const s3Route = line.method === 'POST' && line.target.startsWith('/v1/uploads/');
    // A client that gave up mid-request (half-closed) may be left unanswered.
    const violations = checkOutcome(outcome, { s3Route, head: line.method === 'HEAD', mayDrop: spec.framing === 'overstated' });
    for (const violation of violations) {
      const known = knownDefectOf(spec, request, outcome, violation);
      if (known) {
        const entry = (report.knownDefects[known] ??= { count: 0, example: printable(spec) });
        entry.count += 1;
        continue;
      }
      report.counts[violation.invariant] += 1;
      if (report.failures.length < FAILURE_EXAMPLES) report.failures.push({ index, violation, spec: printable(spec) });
    }
    if (!server.alive()) report.crashed = true;
  };

  try {
    const warmup = Math.min(options.warmupCases, specs.length);
    await runPool(specs.slice(0, warmup), 0, options, runOne, report);
    // The baseline: what the server holds, collected, once everything is loaded and warm.
    if (server.alive()) {
      sampling = false;
      report.heap.baselineBytes = await server.collectGarbage();
      report.rss.baselineBytes = server.rssBytes();
      sampling = true;
    }
    await runPool(specs.slice(warmup), warmup, options, runOne, report);
    sampling = false;
    if (!report.crashed) {
      await finishJobs(server, jobs);
      report.leftovers = leftoverFiles(server.dataDir, filesBefore, await server.dataFiles());
      report.heap.settledBytes = await server.collectGarbage();
      report.rss.settledBytes = server.rssBytes();
    }
  } finally {
    clearInterval(sampler);
  }
  report.rss.peakBytes = peak;
  report.jobs = jobs.length;
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

async function runPool(
  specs: CaseSpec[],
  offset: number,
  options: FuzzRunOptions,
  runOne: (spec: CaseSpec, index: number) => Promise<void>,
  report: FuzzReport,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < specs.length && !report.crashed) {
      const i = next++;
      await runOne(specs[i], offset + i);
      const done = offset + i + 1;
      if (options.progress && done % 1000 === 0)
        options.progress(`${done} cases, ${report.counts.server_error} server errors, ${report.counts.non_envelope} non-envelope`);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
}

/** Jobs the case created (201/202), and transcripts it received, which no log may contain. */
function track(outcome: RawOutcome, spec: CaseSpec, jobs: TrackedJob[], server: AdversarialServer): void {
  if (outcome.kind !== 'response') return;
  const { status, body } = outcome.response;
  const text = body.toString('utf8');
  const key = spec.auth === 'other-tenant' ? server.keys.otherTenant : server.keys.valid;
  if (status === 201 || status === 202) {
    const id = safeJson(text)?.id;
    // A 202 job already runs; a 201 job awaits an upload nobody will make.
    if (typeof id === 'string') jobs.push({ id, key, uploaded: false });
  }
  if (status === 200 && spec.target === '/v1/audio/transcriptions') {
    const type = headerOf(outcome.response, 'content-type') ?? '';
    const transcript = /^text\/plain/.test(type) ? text : safeJson(text)?.text;
    if (typeof transcript === 'string' && transcript.trim().length >= 12) recordCanary('transcript', transcript.trim());
  }
}

/**
 * Completes some of the jobs that received their audio (they then run) and waits until no job is
 * accepted or running: only then is "nothing left on disk" a fair question. Uploaded jobs left
 * uncompleted keep their audio legitimately (leftovers.ts asks the job rows).
 */
async function finishJobs(server: AdversarialServer, jobs: TrackedJob[]): Promise<void> {
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  for (const job of jobs.filter((j) => j.uploaded).slice(0, JOBS_COMPLETED_AT_END)) {
    await fetch(`${server.url}/v1/jobs/${job.id}/complete`, { method: 'POST', headers: auth(job.key) }).then((r) => r.arrayBuffer());
  }
  const deadline = Date.now() + 120_000;
  for (const job of jobs) {
    // The first look does not wait: most jobs never got an upload and stay awaiting it.
    for (let wait = 0; ; wait = 5) {
      const res = await fetch(`${server.url}/v1/jobs/${job.id}?wait=${wait}`, { headers: auth(job.key) });
      const body = safeJson(await res.text());
      if (res.status !== 200 || !['accepted', 'running'].includes(body?.status as string) || Date.now() > deadline) break;
    }
  }
}

function safeJson(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A case as printable JSON (huge values stay as their {repeat, count} description). */
export function printable(spec: CaseSpec): string {
  const text = JSON.stringify(spec, (_key, value: unknown) =>
    typeof value === 'string' && value.length > 120 ? `${value.slice(0, 120)}…(${value.length})` : value,
  );
  return text.length > SPEC_PREVIEW ? `${text.slice(0, SPEC_PREVIEW)}…` : text;
}
