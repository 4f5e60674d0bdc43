// The process kills of the fault matrix (issue 49), shared by the tests and `bench faults`: an API
// process SIGKILLed in the middle of a large upload or of a streamed answer, then restarted on its
// data folder (a supervisor's restart) while the cluster's other api process keeps serving. What an
// operator would ask about is counted: how the cut request ended for its client (a cut connection,
// never a hang past its deadline), what it left (a half-written spool file after the restart, a job
// row, an object in the bucket, a charge), whether the other api process and the restarted one
// answer, and whether the jobs accepted before the kill end `succeeded` exactly once (billed once,
// one signed webhook event each).
//
// On the scaled-out shape the upload cut is the direct route's (POST /v1/audio/transcriptions, at
// most 100,000,000 bytes): presigned job files go straight to the bucket there, never through an
// api process. The 200 MB job upload through an api process is the embedded default's
// (/v1/uploads/{job_id} on SQLite and local disk): runEmbeddedUploadKill.
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

import { inlineEventKey } from '../../src/application/answer-inline.js';
import { jobUsageKey } from '../../src/jobs/job-usage.js';
import { localBlobRoot } from '../../src/store/local-blob-store.js';
import { openPostgres } from '../../src/store/postgres/database.js';
import { speechWav } from './audio-fixtures.js';
import { REQUEST_DEADLINE_MS, webhookFailures } from './fault-scenario.js';
import { auth, completeJob, createJob, jobBody, uploadFile, waitForEnd } from './jobs-client.js';
import type { ScaleOutCluster } from './scale-out-cluster.js';
import { firstKey, kill, serve, serveEnv, type ServeProcess } from './serve-process.js';
import { postStreamedForm, streamedWavForm } from './streamed-form.js';
import { postTranscription } from './test-service.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import { tallyJobWebhooks, type WebhookTally } from './webhook-tally.js';

/** upload: mid-way through a direct upload; stream: after the first event of a stream=true answer. */
export type ApiKillPoint = 'upload' | 'stream';

/** The kill cases by name, for `bench faults`: the api ones on its cluster, the embedded one on a server of its own. */
export const KILL_CASES = { 'api-kill-upload': 'upload', 'api-kill-stream': 'stream', 'embedded-kill-upload': 'embedded' } as const;
export type KillCaseName = keyof typeof KILL_CASES;

export interface KillCaseReport {
  /** How the cut request ended for its client: 'cut' (the connection closed), 'timeout' (a hang), or the HTTP status it got. */
  client: string;
  /** Stream: whether the client had events and not the last one when the process died (the kill landed mid-answer). */
  midStream: boolean | null;
  /** Bytes the server had spooled when it was killed (upload). */
  spooledAtKill: number | null;
  /** Request bodies left in the killed process's spool once it was restarted. */
  spoolLeft: number;
  /** Jobs the cut request left (rows that are not the accepted jobs' and are past `awaiting_upload`). */
  halfJobs: number;
  /** Objects left under the bucket's `uploads/` and `jobs/` once every job ended (audio is deleted then). */
  bucketLeft: number;
  /** Usage events besides the accepted jobs' and the other requests' own (a charge for the cut request). */
  charged: number;
  /** Whether the other api process, and then the restarted one, answered an inline transcription 200. */
  othersServed: boolean;
  restartedServed: boolean;
  accepted: number;
  succeeded: number;
  lost: number;
  /** Jobs billed more than once, or not at all. */
  duplicated: number;
  unbilled: number;
  webhooks: WebhookTally | null;
  /** Processes besides the killed one that exited on their own. */
  exited: number;
}

export interface KillCaseOptions {
  /** Bytes of the cut upload (at most 100,000,000 on the direct route). */
  uploadBytes?: number;
  recoveryLimitMs?: number;
}

/**
 * On a cluster started with `webhooks`: accepts two jobs through `victim` (a presigned one and a
 * direct-route one with a webhook), cuts a request to it by SIGKILL, serves from the cluster's api
 * process, restarts the victim and counts. Returns the report and the restarted process.
 */
export async function runApiKillCase(
  cluster: ScaleOutCluster,
  victim: ServeProcess,
  point: ApiKillPoint,
  options: KillCaseOptions = {},
): Promise<{ report: KillCaseReport; restarted: ServeProcess }> {
  const secret = cluster.webhookSecret;
  if (!secret) throw new Error('the kill cases need a cluster started with webhooks');
  const { key } = cluster;
  const recoveryLimitMs = options.recoveryLimitMs ?? 180_000;
  const db = await openPostgres(cluster.databaseUrl);
  const bucket = new S3Client({ endpoint: cluster.s3.endpoint, region: cluster.s3.region, forcePathStyle: true, credentials: cluster.s3.credentials });
  const receiver = await startWebhookReceiver({ status: 204 });
  const spool = join(localBlobRoot(cluster.dataDirOf(victim)), 'uploads');
  try {
    const jobAudio = await readFile(await speechWav(8));
    const hook = { webhook_url: `${receiver.origin}/hooks/stt` };
    // Accepted through the victim before it dies: the workers must still run each once.
    const presigned = await createJob(victim.url, key, jobBody(jobAudio, { language: 'en', ...hook }));
    if ((await uploadFile(presigned, jobAudio)).status !== 204 || (await completeJob(presigned, key)).status !== 202) throw new Error('the presigned job');
    const direct = await postTranscription(victim.url, key, { model: 'svc-medical-1', language: 'en', ...hook }, wav(jobAudio));
    if (direct.status !== 202) throw new Error(`the direct job: ${direct.status} ${await direct.text()}`);
    const ids = [presigned.id, ((await direct.json()) as { id: string }).id];

    const jobsBefore = new Set((await db.query<{ id: string }>('SELECT id FROM jobs')).rows.map((r) => r.id));
    const usageBefore = new Set((await db.query<{ event_key: string }>('SELECT event_key FROM usage_events')).rows.map((r) => r.event_key));
    const cut = point === 'upload' ? await cutUpload(victim, key, spool, options.uploadBytes ?? 16_000_000) : await cutStream(victim, key);

    // The other api process serves at once; the victim, restarted on its folder, once it is up.
    const others = await inlineRequest(cluster.api.url, key);
    const restarted = await cluster.restart(victim);
    const spoolLeft = (await readdir(spool)).filter((name) => name.endsWith('.part')).length;
    const again = await inlineRequest(restarted.url, key);

    const until = Date.now() + recoveryLimitMs;
    let succeeded = 0;
    while (Date.now() < until) {
      const { rows } = await db.query<{ succeeded: number; ended: number }>(
        `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded, count(*) FILTER (WHERE status IN ('succeeded', 'failed'))::int AS ended
         FROM jobs WHERE id = ANY($1)`,
        [ids],
      );
      succeeded = rows[0]!.succeeded;
      if (rows[0]!.ended === ids.length) break;
      await sleep(200);
    }
    while (Date.now() < until) {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE job_id = ANY($1) AND state = 'delivered'`, [ids]);
      if (rows[0]!.n >= succeeded) break;
      await sleep(200);
    }

    const newJobs = (await db.query<{ id: string; status: string }>('SELECT id, status FROM jobs')).rows.filter((r) => !jobsBefore.has(r.id));
    const usage = (await db.query<{ event_key: string }>('SELECT event_key FROM usage_events')).rows.map((r) => r.event_key);
    const expected = new Set([...ids.map(jobUsageKey), ...[others, again].flatMap((r) => (r.requestId ? [inlineEventKey(r.requestId)] : []))]);
    const perJob = ids.map((id) => usage.filter((k) => k === jobUsageKey(id)).length);
    const succeededIds = (await db.query<{ id: string }>(`SELECT id FROM jobs WHERE id = ANY($1) AND status = 'succeeded'`, [ids])).rows.map((r) => r.id);
    let bucketLeft = 0;
    for (const area of ['uploads/', 'jobs/']) {
      bucketLeft += ((await bucket.send(new ListObjectsV2Command({ Bucket: cluster.s3.bucket, Prefix: area }))).Contents ?? []).length;
    }
    const report: KillCaseReport = {
      client: cut.client,
      midStream: cut.midStream,
      spooledAtKill: cut.spooledAtKill,
      spoolLeft,
      halfJobs: newJobs.filter((r) => !ids.includes(r.id) && r.status !== 'awaiting_upload').length,
      bucketLeft,
      charged: usage.filter((k) => !usageBefore.has(k) && !expected.has(k)).length,
      othersServed: others.status === 200,
      restartedServed: again.status === 200,
      accepted: ids.length,
      succeeded,
      lost: ids.length - succeeded,
      duplicated: perJob.filter((n) => n > 1).length,
      unbilled: perJob.filter((n) => n === 0).length,
      webhooks: tallyJobWebhooks(receiver.requests, secret, succeededIds),
      exited: [cluster.api, ...cluster.workers].filter((p) => p.child.exitCode !== null || p.child.signalCode !== null).length,
    };
    return { report, restarted };
  } finally {
    await receiver.close();
    bucket.destroy();
    await db.close();
  }
}

/**
 * The embedded default (SQLite and local disk, one process): a job's 200 MB file posted to its
 * upload form, the process SIGKILLed half-way and restarted on its data folder. The cut job must
 * still await its upload (never queued with part of a file: completing it is refused 409), the
 * spool and job storage hold nothing of it, and a job accepted before the kill succeeds once.
 */
export async function runEmbeddedUploadKill(options: KillCaseOptions = {}): Promise<KillCaseReport> {
  const uploadBytes = options.uploadBytes ?? 200_000_000;
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-kill-'));
  const env = await serveEnv(dataDir, { SVC_JOB_CHUNK_SECONDS: '5' });
  let server: ServeProcess | null = null;
  try {
    server = await serve(env);
    const key = await firstKey(dataDir);
    const jobAudio = await readFile(await speechWav(8));
    const accepted = await createJob(server.url, key, jobBody(jobAudio, { language: 'en' }));
    if ((await uploadFile(accepted, jobAudio)).status !== 204 || (await completeJob(accepted, key)).status !== 202) throw new Error('the accepted job');
    const big = await createJob(server.url, key, { filename: 'visit.wav', content_type: 'audio/wav', content_length_bytes: uploadBytes, language: 'en' });
    const spool = join(localBlobRoot(dataDir), 'uploads');
    const form = streamedWavForm(big.upload.fields, uploadBytes);
    const sending = clientOutcome(postStreamedForm(big.upload.url, form, {}, AbortSignal.timeout(REQUEST_DEADLINE_MS * 10)));
    const spooledAtKill = await killWhenSpooled(server, spool, uploadBytes / 2, sending);
    const client = await sending;

    server = await serve(env);
    const spoolLeft = (await readdir(spool)).filter((name) => name.endsWith('.part')).length;
    const at = (url: string) => `${server!.url}${new URL(url).pathname}`;
    const cutJob = (await (await fetch(at(big.poll_url), { headers: auth(key) })).json()) as { status: string };
    const completeCut = await completeJob({ complete_url: at(big.complete_url) }, key);
    await completeCut.arrayBuffer();
    const again = await inlineRequest(server.url, key);
    const done = await waitForEnd(at(accepted.poll_url), key, options.recoveryLimitMs ?? 180_000);
    const usage = (await (await fetch(`${server.url}/v1/usage`, { headers: auth(key) })).json()) as {
      keys: Array<{ lines: Array<{ route: string; units: number }> }>;
    };
    const units = (route: string) =>
      usage.keys
        .flatMap((k) => k.lines)
        .filter((line) => line.route === route)
        .reduce((n, line) => n + line.units, 0);
    const jobUnits = units('job');
    const jobAudioLeft = (await readdir(join(localBlobRoot(dataDir), 'jobs'))).length;
    return {
      client,
      midStream: null,
      spooledAtKill,
      spoolLeft,
      // Queued with part of a file, or completable: the cut upload became a job.
      halfJobs: cutJob.status !== 'awaiting_upload' || completeCut.status !== 409 ? 1 : 0,
      bucketLeft: jobAudioLeft,
      // The one inline request after the restart is the only inline work there was.
      charged: Math.max(0, units('inline') - (again.status === 200 ? 1 : 0)),
      othersServed: true,
      restartedServed: again.status === 200,
      accepted: 1,
      succeeded: done.status === 'succeeded' ? 1 : 0,
      lost: done.status === 'succeeded' ? 0 : 1,
      duplicated: jobUnits > 1 ? 1 : 0,
      unbilled: jobUnits === 0 ? 1 : 0,
      webhooks: null,
      exited: 0,
    };
  } finally {
    if (server && server.child.exitCode === null && server.child.signalCode === null) await kill(server);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** What a kill case failed of the expectations (empty when it survived). */
export function killCaseFailures(report: KillCaseReport): string[] {
  const failures: string[] = [];
  if (report.client !== 'cut') failures.push(`the cut request ended ${report.client} for its client, not a cut connection`);
  if (report.midStream === false) failures.push('the answer had ended before the kill');
  if (!report.othersServed) failures.push('the other api process did not serve');
  if (!report.restartedServed) failures.push('the restarted process did not serve');
  for (const what of ['spoolLeft', 'halfJobs', 'bucketLeft', 'charged', 'lost', 'duplicated', 'unbilled', 'exited'] as const) {
    if (report[what] > 0) failures.push(`${what}: ${report[what]}`);
  }
  failures.push(...webhookFailures(report.webhooks));
  return failures;
}

interface CutRequest {
  client: string;
  midStream: boolean | null;
  spooledAtKill: number | null;
}

/** A direct upload of `bytes` (minutes of audio: it would become a job), the victim killed once half of it is spooled. */
async function cutUpload(victim: ServeProcess, key: string, spool: string, bytes: number): Promise<CutRequest> {
  const form = streamedWavForm({ model: 'svc-medical-1', language: 'en' }, bytes);
  const sending = clientOutcome(postStreamedForm(`${victim.url}/v1/audio/transcriptions`, form, auth(key), AbortSignal.timeout(REQUEST_DEADLINE_MS * 5)));
  const spooledAtKill = await killWhenSpooled(victim, spool, bytes / 2, sending);
  return { client: await sending, midStream: null, spooledAtKill };
}

/** A stream=true answer of 55 s of speech (two windows), the victim killed at its first event. */
async function cutStream(victim: ServeProcess, key: string): Promise<CutRequest> {
  const speech = await readFile(await speechWav(55));
  let text = '';
  const fields = { model: 'svc-medical-1', language: 'en', response_format: 'json', stream: 'true' };
  const client = await (async () => {
    try {
      const res = await postTranscription(victim.url, key, fields, wav(speech), {}, undefined, AbortSignal.timeout(REQUEST_DEADLINE_MS));
      if (res.status !== 200 || !res.body) return String(res.status);
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let killed = false;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return '200';
        text += decoder.decode(value, { stream: true });
        if (!killed && text.includes('data: ')) {
          killed = true;
          await kill(victim);
        }
      }
    } catch (error) {
      return (error as Error).name === 'TimeoutError' ? 'timeout' : 'cut';
    }
  })();
  return { client, midStream: text.includes('data: ') && !text.includes('transcript.text.done'), spooledAtKill: null };
}

/** Resolves with how the request ended: its status once answered (body read), 'cut' or 'timeout'. */
async function clientOutcome(request: Promise<Response>): Promise<string> {
  try {
    const res = await request;
    await res.arrayBuffer();
    return String(res.status);
  } catch (error) {
    return (error as Error).name === 'TimeoutError' ? 'timeout' : 'cut';
  }
}

/** SIGKILLs `server` once a body in `spool` holds `bytes` (returns how many it held); null when the request ended first. */
async function killWhenSpooled(server: ServeProcess, spool: string, bytes: number, request: Promise<string>): Promise<number | null> {
  let ended = false;
  void request.then(() => (ended = true));
  while (!ended) {
    for (const name of await readdir(spool).catch(() => [] as string[])) {
      if (!name.endsWith('.part')) continue;
      const size = (await stat(join(spool, name)).catch(() => null))?.size ?? 0;
      if (size < bytes) continue;
      await kill(server);
      return size;
    }
    await sleep(10);
  }
  return null;
}

async function inlineRequest(url: string, key: string): Promise<{ status: number; requestId: string | null }> {
  const audio = await readFile(await speechWav(2));
  const res = await postTranscription(
    url,
    key,
    { model: 'svc-medical-1', language: 'en', response_format: 'json' },
    wav(audio),
    {},
    undefined,
    AbortSignal.timeout(REQUEST_DEADLINE_MS),
  );
  await res.arrayBuffer();
  return { status: res.status, requestId: res.headers.get('x-request-id') };
}

const wav = (data: Uint8Array) => ({ data, name: 'visit.wav', type: 'audio/wav' });

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
