// One case of the fault matrix (issue 49), shared by the fault tests and `bench faults`: on a target
// (a scaled-out cluster of an api process and workers on PostgreSQL and S3, or the embedded default:
// one `serve` on SQLite and local disk), jobs are accepted and set running, then a fault begins
// (`fault.down()` ... `fault.up()`: a dependency goes away, the disk fills up) while requests keep
// arriving: readiness probes on every process, polls, inline transcriptions, new jobs. Every request
// has a client deadline. Afterwards the case waits for the processes to be ready again and for every
// accepted job to end, and counts what an operator would ask about: the status of each request
// during the fault, 503s without Retry-After, requests that hung, jobs lost or run twice (one result
// object and one usage event per job; on a target with a webhook secret, every job asks for a
// webhook and the receiver must get one signed `transcription.job.succeeded` event per job),
// processes that exited on their own, and what the case itself checks (`fault.verify`).
import { readFile } from 'node:fs/promises';

import type { Test } from 'tap';

import { jobUsageKey } from '../../src/jobs/job-usage.js';
import { speechWav } from './audio-fixtures.js';
import type { FaultLedger } from './fault-ledgers.js';
import { auth, completeJob, type CreatedJob, createJob, jobBody, uploadFile, waitForEnd } from './jobs-client.js';
import type { ServeProcess } from './serve-process.js';
import { postTranscription } from './test-service.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import { tallyJobWebhooks, type WebhookTally } from './webhook-tally.js';

/** A request that has not answered in this long has hung (the service's own deadlines are shorter). */
export const REQUEST_DEADLINE_MS = 20_000;
const PROBE_EVERY_MS = 250;

export interface Fault {
  down(): Promise<void>;
  up(): Promise<void>;
  /** Whether the processes can tell: every /readyz must say not ready while it lasts (default true). */
  detectable?: boolean;
  /** What the case checks besides the common expectations, once every job ended: failures, none when it held. */
  verify?(): Promise<string[]>;
}

/** What a case runs on: the processes (looked up when needed: a case may add one), the key, what they stored. */
export interface FaultTarget {
  api: ServeProcess;
  processes(): ServeProcess[];
  key: string;
  /** The key's webhook signing secret (`whsec_...`): jobs then ask for webhooks, checked one event each. */
  webhookSecret: string | null;
  /** The test's own view of the jobs, usage events and result objects the processes stored. */
  openLedger(): Promise<FaultLedger>;
}

export interface FaultCaseOptions {
  jobs: number;
  /** How long the dependency stays away. */
  outageMs: number;
  /** Seconds of speech per job. */
  jobAudioSeconds?: number;
  /** How long to wait for recovery (ready again, every job ended) before counting what is left as lost. */
  recoveryLimitMs?: number;
}

/**
 * readyz: every process's /readyz; poll: a job being run; result: a job that ended before the fault
 * (its result is read from storage); inline: a short transcription; create: a new job.
 */
export type RequestKind = 'readyz' | 'poll' | 'result' | 'inline' | 'create';

export interface FaultCaseReport {
  /** Requests answered while the dependency was away, by kind and then by answer ('503', 'timeout', 'error'...). */
  duringFault: Record<RequestKind, Record<string, number>>;
  /** Requests sent while it was away and answered after it came back (they waited for it), likewise. */
  afterFault: Record<RequestKind, Record<string, number>>;
  /** 503 answers without a Retry-After header. */
  missingRetryAfter: number;
  /** Whether every process's /readyz said not ready at least once during the fault. */
  notReadyDuringFault: boolean;
  /** From up() until every process's /readyz answers 200 (null: not within the recovery limit). */
  secondsToReady: number | null;
  /** From up() until every accepted job ended (or the recovery limit). */
  secondsToEnd: number;
  /** Jobs that had ended when the fault began (the rest were queued or running). */
  endedBeforeFault: number;
  accepted: number;
  succeeded: number;
  lost: number;
  /** Why the accepted jobs that failed failed ('error_code: message'). */
  jobFailures: string[];
  /** Jobs billed more than once (more than one usage event). */
  duplicated: number;
  /** Succeeded jobs whose result a poll did not serve whole (not 200 with the content inline). */
  unreadable: number;
  /**
   * Result objects besides the one each ended job's row names: provisional or superseded revisions
   * that a retried step left (never served; the orphan sweep removes them).
   */
  leftoverObjects: number;
  /** Jobs without their one usage event after they succeeded. */
  unbilled: number;
  /** 5xx other than 503 during or after the fault. */
  serverErrors: number;
  /** What the webhook receiver got for the accepted jobs; null when the cluster has no webhook secret. */
  webhooks: WebhookTally | null;
  /** Processes that exited on their own. */
  exited: number;
  /** Whether the processes were expected to say not ready (the fault is one they can detect). */
  notReadyExpected: boolean;
  /** What the case's own checks found (Fault.verify). */
  caseFailures: string[];
}

export async function runFaultCase(target: FaultTarget, fault: Fault, options: FaultCaseOptions): Promise<FaultCaseReport> {
  const recoveryLimitMs = options.recoveryLimitMs ?? 180_000;
  const { api, key } = target;
  const jobAudio = await readFile(await speechWav(options.jobAudioSeconds ?? 8));
  const inlineAudio = await readFile(await speechWav(2));
  const ledger = await target.openLedger();
  const receiver = target.webhookSecret ? await startWebhookReceiver({ status: 204 }) : null;
  const hook = receiver ? { webhook_url: `${receiver.origin}/hooks/stt` } : {};
  try {
    const finished = await createJob(api.url, key, jobBody(jobAudio, { language: 'en' }));
    if ((await uploadFile(finished, jobAudio)).status !== 204 || (await completeJob(finished, key)).status !== 202) throw new Error('the first job');
    if ((await waitForEnd(finished.poll_url, key)).status !== 'succeeded') throw new Error('the first job did not succeed');
    const jobs: CreatedJob[] = [];
    for (let i = 0; i < options.jobs; i++) {
      const job = await createJob(api.url, key, jobBody(jobAudio, { language: 'en', ...hook }));
      const uploaded = await uploadFile(job, jobAudio);
      if (uploaded.status !== 204) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
      jobs.push(job);
    }
    for (const job of jobs) {
      const completed = await completeJob(job, key);
      if (completed.status !== 202) throw new Error(`complete: ${completed.status} ${await completed.text()}`);
    }

    const duringFault = { readyz: {}, poll: {}, result: {}, inline: {}, create: {} } as FaultCaseReport['duringFault'];
    const afterFault = { readyz: {}, poll: {}, result: {}, inline: {}, create: {} } as FaultCaseReport['afterFault'];
    let faultOver = false;
    let missingRetryAfter = 0;
    let serverErrors = 0;
    const notReady = new Set<number>();
    const send = async (kind: RequestKind, request: (signal: AbortSignal) => Promise<Response>, process = -1) => {
      let answer: string;
      try {
        const res = await request(AbortSignal.timeout(REQUEST_DEADLINE_MS));
        await res.arrayBuffer();
        answer = String(res.status);
        if (res.status === 503 && kind !== 'readyz' && !res.headers.get('retry-after')) missingRetryAfter++;
        if (res.status >= 500 && res.status !== 503) serverErrors++;
        if (kind === 'readyz' && res.status === 503) notReady.add(process);
      } catch (error) {
        answer = (error as Error).name === 'TimeoutError' ? 'timeout' : 'error';
      }
      const tally = faultOver ? afterFault : duringFault;
      tally[kind][answer] = (tally[kind][answer] ?? 0) + 1;
    };
    const round = () =>
      Promise.all([
        ...target.processes().map((p, i) => send('readyz', (signal) => fetch(`${p.url}/readyz`, { signal }), i)),
        send('poll', (signal) => fetch(jobs[0].poll_url, { headers: auth(key), signal })),
        send('result', (signal) => fetch(`${finished.poll_url}?include_result=true`, { headers: auth(key), signal })),
        send('inline', (signal) =>
          postTranscription(
            api.url,
            key,
            { model: 'svc-medical-1', language: 'en' },
            { data: inlineAudio, name: 'a.wav', type: 'audio/wav' },
            {},
            undefined,
            signal,
          ),
        ),
        send('create', (signal) =>
          fetch(`${api.url}/v1/jobs`, {
            method: 'POST',
            headers: { ...auth(key), 'content-type': 'application/json' },
            body: JSON.stringify(jobBody(jobAudio, { language: 'en' })),
            signal,
          }),
        ),
      ]);

    const ids = jobs.map((j) => j.id);
    const ended = () => ledger.ended(ids);
    const endedBeforeFault = (await ended()).ended;
    // Requests are sent while the dependency is away; those still open when it comes back count too.
    await fault.down();
    const faultEnds = Date.now() + options.outageMs;
    const inFlight: Promise<unknown>[] = [];
    while (Date.now() < faultEnds) {
      inFlight.push(round());
      await sleep(PROBE_EVERY_MS);
    }
    await fault.up();
    faultOver = true;
    const upAt = Date.now();
    await Promise.all(inFlight);

    const until = upAt + recoveryLimitMs;
    let secondsToReady: number | null = null;
    while (Date.now() < until) {
      const states = await Promise.all(
        target.processes().map((p) =>
          fetch(`${p.url}/readyz`, { signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) }).then(
            (r) => r.status,
            () => 0,
          ),
        ),
      );
      if (states.every((s) => s === 200)) {
        secondsToReady = (Date.now() - upAt) / 1000;
        break;
      }
      await sleep(100);
    }

    let succeeded = 0;
    while (Date.now() < until) {
      const now = await ended();
      succeeded = now.succeeded;
      if (now.ended === ids.length) break;
      await sleep(200);
    }
    const secondsToEnd = (Date.now() - upAt) / 1000;
    // Every succeeded job's event written and sent (a delivery is final once recorded delivered).
    while (receiver && Date.now() < until) {
      if ((await ledger.deliveredWebhooks(ids)) >= succeeded) break;
      await sleep(200);
    }

    const jobFailures = await ledger.failures(ids);
    const usage = await ledger.jobUsageKeys();
    const leftoverObjects = await ledger.leftoverResults(ids);
    const webhooks = receiver ? tallyJobWebhooks(receiver.requests, target.webhookSecret!, await ledger.succeededIds(ids)) : null;
    const caseFailures = (await fault.verify?.()) ?? [];
    let duplicated = 0;
    let unbilled = 0;
    let unreadable = 0;
    for (const job of jobs) {
      const events = usage.filter((k) => k === jobUsageKey(job.id)).length;
      if (events > 1) duplicated++;
      if (events === 0) unbilled++;
      const res = await fetch(`${job.poll_url}?include_result=true`, { headers: auth(key), signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
      const body = (await res.json()) as { status?: string; result?: { inline?: boolean; content?: unknown } };
      if (body.status === 'succeeded' && !(res.status === 200 && body.result?.inline === true && body.result.content !== undefined)) unreadable++;
    }
    const processes = target.processes();
    const detectable = fault.detectable ?? true;
    return {
      duringFault,
      afterFault,
      jobFailures,
      missingRetryAfter,
      notReadyDuringFault: processes.every((_, i) => notReady.has(i)),
      secondsToReady,
      secondsToEnd,
      endedBeforeFault,
      accepted: ids.length,
      succeeded,
      lost: ids.length - succeeded,
      duplicated,
      unreadable,
      leftoverObjects,
      unbilled,
      serverErrors,
      webhooks,
      exited: processes.filter((p) => p.child.exitCode !== null || p.child.signalCode !== null).length,
      notReadyExpected: detectable,
      caseFailures,
    };
  } finally {
    await receiver?.close();
    await ledger.close();
  }
}

/**
 * What a case failed of the expectations (empty when it survived). Each request sent during
 * the fault was answered in time, with a success or a 503 with Retry-After; `needed` names the kinds
 * that cannot be served without the dependency: all 503 while it is away (a request that waited and
 * was answered once it came back may succeed).
 */
export function faultCaseFailures(report: FaultCaseReport, needed: readonly RequestKind[]): string[] {
  const failures: string[] = [];
  for (const kind of ['poll', 'result', 'inline', 'create'] as const) {
    const answers = Object.keys(report.duringFault[kind]);
    const ok = needed.includes(kind) ? answers.every((a) => a === '503') : answers.every((a) => a === '503' || a.startsWith('2'));
    if (!ok) failures.push(`${kind} requests during the fault were answered ${answers.join(', ')}`);
    const late = Object.keys(report.afterFault[kind]);
    if (!late.every((a) => a === '503' || a.startsWith('2'))) failures.push(`${kind} requests sent during the fault were answered ${late.join(', ')} after it`);
  }
  if (report.missingRetryAfter > 0) failures.push(`${report.missingRetryAfter} 503s without Retry-After`);
  if (report.notReadyExpected && !report.notReadyDuringFault) failures.push('a process did not say not ready during the fault');
  if (report.secondsToReady === null) failures.push('a process was not ready again');
  if (report.jobFailures.length > 0) failures.push(`jobs failed: ${report.jobFailures.join('; ')}`);
  for (const what of ['lost', 'duplicated', 'unbilled', 'unreadable', 'serverErrors', 'exited'] as const) {
    if (report[what] > 0) failures.push(`${what}: ${report[what]}`);
  }
  return [...failures, ...webhookFailures(report.webhooks), ...report.caseFailures];
}

/** One signed success event per succeeded job, none told twice (a repeated id is a retry, not a second event). */
export function webhookFailures(tally: WebhookTally | null): string[] {
  if (!tally) return [];
  return (['missing', 'duplicated', 'unsigned'] as const).filter((what) => tally[what] > 0).map((what) => `webhook events ${what}: ${tally[what]}`);
}

/** The case's expectations as one assertion, with the report beside it. */
export function assertSurvived(t: Test, report: FaultCaseReport, needed: readonly RequestKind[]): void {
  t.comment(JSON.stringify(report));
  t.same(faultCaseFailures(report, needed), [], 'survived: answers in time, 503 with Retry-After, not ready then ready, every job once');
  t.ok(report.accepted > 0 && report.succeeded === report.accepted, `every accepted job succeeded (${report.succeeded}/${report.accepted})`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
