// bench soak: the embedded default (one `serve` process, SQLite and local disk) under a steady mix for
// --minutes (issue 49): inline transcriptions, jobs with signed webhooks to a real HTTPS receiver and
// their polls, two realtime sessions streaming at real time, and the console's sign-in page. Each
// sample (--sample-seconds) reads the server's RSS, its V8 heap and open handles (its own /metrics),
// the database's size on disk and the inline requests' latency. What it judges:
//   - growth after the warm-up (--warmup-minutes): RSS and heap of the last three samples against the
//     first three after it (medians), bars 16 MiB each;
//   - latency drift: p95 of the inline requests of the last 5 minutes against minutes 5-10 (bar 15 %);
//     shorter runs compare their last third against their second;
//   - zero 5xx answers, zero lost work (every job accepted ends succeeded, with exactly one webhook
//     event), realtime sessions that all reach their end;
//   - the database: its size against what the retained jobs explain (reported, per retained job).
//   npm run bench -- soak [--minutes 30] [--warmup-minutes 5] [--sample-seconds 60] [--inline-every-ms 2000] [--job-every-ms 10000]
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { databasePath } from '../src/store/sqlite/database.js';
import { speechWav } from '../test/helpers/audio-fixtures.js';
import { completeJob, createJob, jobBody, poll, uploadFile } from '../test/helpers/jobs-client.js';
import { connectRealtime, startMessage, wavPcm } from '../test/helpers/realtime-client.js';
import { CLI_ARGS, firstKey, serve, serveEnv } from '../test/helpers/serve-process.js';
import { startWebhookReceiver } from '../test/helpers/webhook-receiver.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';
import { trustTestCertificateAuthority } from './lib-test-ca.js';

const MIB = 1024 * 1024;
const run_ = promisify(execFile);

interface Sample {
  minute: number;
  rssMib: number;
  heapMib: number;
  handles: number;
  dbMib: number;
  inline: number[];
  serverErrors: number;
}

export async function run(args: string[]): Promise<void> {
  const minutes = Number(flag(args, 'minutes', '30'));
  const warmupMinutes = Number(flag(args, 'warmup-minutes', '5'));
  const sampleMs = Number(flag(args, 'sample-seconds', '60')) * 1000;
  const inlineEveryMs = Number(flag(args, 'inline-every-ms', '2000'));
  const jobEveryMs = Number(flag(args, 'job-every-ms', '10000'));

  const trustedCertificates = trustTestCertificateAuthority();
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-soak-'));
  const env = await serveEnv(dataDir, {
    SVC_RATE_LIMIT_PER_MINUTE: '1000000',
    SVC_WEBHOOK_ALLOW_LOOPBACK: '1',
    SVC_JOB_CHUNK_SECONDS: '5',
    SVC_LOG_LEVEL: 'warn',
    NODE_EXTRA_CA_CERTS: trustedCertificates,
  });
  const server = await serve(env);
  const pid = server.child.pid!;
  const receiver = await startWebhookReceiver();
  const speech = await readFile(await speechWav(3));
  const realtimeSpeech = wavPcm(await readFile(await speechWav(6)));
  const consoleUrl = (/"consoleUrl":"([^"]+)"/.exec(server.stdout()) ?? [])[1] ?? null;

  const samples: Sample[] = [];
  const jobs = new Map<string, { pollUrl: string; status: string }>();
  const realtime = { sessions: 0, finished: 0, failed: 0 };
  let current: Sample = newSample(0);
  let stopping = false;
  const tally = (status: number) => {
    if (status >= 500) current.serverErrors++;
  };

  try {
    const key = await firstKey(dataDir);
    const cli = (...cliArgs: string[]) => run_(process.execPath, [...CLI_ARGS, ...cliArgs], { env });
    const keyId = (JSON.parse((await cli('keys', 'list', '--json')).stdout) as Array<{ id: string }>)[0]!.id;
    await cli('webhooks', 'secret', 'create', '--key', keyId);

    const every = async (ms: number, step: () => Promise<void>) => {
      while (!stopping) {
        const started = Date.now();
        await step().catch((error: unknown) => console.error(`soak step failed: ${String(error)}`));
        await sleep(Math.max(0, ms - (Date.now() - started)));
      }
    };
    const inline = async () => {
      const form = new FormData();
      form.append('model', 'svc-medical-1');
      form.append('response_format', 'json');
      form.append('file', new Blob([new Uint8Array(speech)], { type: 'audio/wav' }), 'visit.wav');
      const started = performance.now();
      const res = await fetch(`${server.url}/v1/audio/transcriptions`, { method: 'POST', body: form, headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      tally(res.status);
      if (res.status === 200) current.inline.push(performance.now() - started);
    };
    const job = async () => {
      const created = await createJob(server.url, key, jobBody(speech, { webhook_url: `${receiver.origin}/hook` }));
      tally((await uploadFile(created, speech)).status);
      const completed = await completeJob(created, key);
      tally(completed.status);
      if (completed.status < 300) jobs.set(created.id, { pollUrl: created.poll_url, status: 'queued' });
    };
    const polls = async () => {
      for (const [, open] of [...jobs].filter(([, j]) => j.status !== 'succeeded' && j.status !== 'failed')) {
        const { status, body } = await poll(open.pollUrl, key);
        tally(status);
        if (status === 200) open.status = String(body.status);
      }
    };
    const session = async () => {
      realtime.sessions++;
      const client = await connectRealtime(server.realtimeUrl!);
      client.start(startMessage(key));
      await client.next('ready');
      await client.stream(realtimeSpeech, { pace: 1 });
      client.stop();
      const { code } = await client.closed;
      if (code === 1000) realtime.finished++;
      else realtime.failed++;
    };
    const consolePage = async () => {
      if (!consoleUrl) return;
      const res = await fetch(`${consoleUrl}/sign-in`);
      await res.arrayBuffer();
      tally(res.status);
    };

    const start = Date.now();
    const loops = [
      every(inlineEveryMs, inline),
      every(jobEveryMs, job),
      every(2000, polls),
      every(1000, session),
      every(1000, session),
      every(10_000, consolePage),
    ];
    while (Date.now() - start < minutes * 60_000) {
      await sleep(Math.min(sampleMs, minutes * 60_000 - (Date.now() - start)));
      samples.push(await measure(current, pid, server.url, dataDir, (Date.now() - start) / 60_000));
      current = newSample(samples.length);
      console.log(sampleRow(samples.at(-1)!).join('  '));
    }
    stopping = true;
    await Promise.all(loops);
    // Every job accepted must end succeeded, with one webhook event each.
    const drainUntil = Date.now() + 180_000;
    while ([...jobs.values()].some((j) => j.status !== 'succeeded' && j.status !== 'failed') && Date.now() < drainUntil) {
      await polls();
      await sleep(1000);
    }
    await sleep(2000);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    await receiver.close();
  }

  const events = new Map<string, number>();
  for (const request of receiver.requests) {
    const id = (JSON.parse(request.body.toString('utf8')) as { data?: { job_id?: string } }).data?.job_id ?? '?';
    events.set(id, (events.get(id) ?? 0) + 1);
  }
  const accepted = [...jobs.keys()];
  const lost = accepted.filter((id) => jobs.get(id)!.status !== 'succeeded').length;
  const webhookMismatches = accepted.filter((id) => events.get(id) !== 1).length;
  const dbMib = samples.at(-1)?.dbMib ?? 0;
  await rm(dataDir, { recursive: true, force: true });

  console.log('');
  printTable(['minute', 'RSS MiB', 'heap MiB', 'handles', 'db MiB', 'inline', 'p50 ms', 'p95 ms', '5xx'], samples.map(sampleRow));
  // Three samples a side, their medians: one reading catches a collection's moment (the heap in use
  // moved 51 to 62 MiB between neighbouring minutes of one run), a leak moves all three.
  const afterWarmUp = samples.filter((s) => s.minute >= warmupMinutes);
  const warm = medianSample((afterWarmUp.length > 0 ? afterWarmUp : samples).slice(0, 3));
  const last = medianSample(samples.slice(-3));
  const { early, late } = driftWindows(samples, minutes);
  const p95 = (window: Sample[]) =>
    percentile(
      window.flatMap((s) => s.inline),
      0.95,
    );
  const drift = p95(early) > 0 ? p95(late) / p95(early) - 1 : 0;
  const serverErrors = samples.reduce((n, s) => n + s.serverErrors, 0);
  const figures = {
    minutes,
    rss_growth_mb: round(last.rssMib - warm.rssMib, 1),
    heap_growth_mb: round(last.heapMib - warm.heapMib, 1),
    handles_growth: last.handles - warm.handles,
    p95_early_ms: round(p95(early), 0),
    p95_late_ms: round(p95(late), 0),
    p95_drift: round(drift, 3),
    server_errors: serverErrors,
    lost,
    webhook_mismatches: webhookMismatches,
    jobs: accepted.length,
    inline_requests: samples.reduce((n, s) => n + s.inline.length, 0),
    realtime_sessions: realtime.sessions,
    realtime_failed: realtime.failed,
    db_mb: round(dbMib, 2),
    db_kb_per_job: accepted.length > 0 ? round((dbMib * 1024) / accepted.length, 1) : null,
  };
  const passes = figures.rss_growth_mb <= 16 && figures.heap_growth_mb <= 16 && drift <= 0.15 && serverErrors === 0 && lost === 0 && webhookMismatches === 0;
  console.log(`\nbars after a ${warmupMinutes}-minute warm-up: RSS and heap growth <= 16 MiB, p95 drift <= 15 %, 0 5xx, 0 lost, one webhook event per job`);
  printResult('soak', { ...figures, passes });
}

function medianSample(window: Sample[]): Pick<Sample, 'rssMib' | 'heapMib' | 'handles'> {
  return { rssMib: median(window.map((s) => s.rssMib)), heapMib: median(window.map((s) => s.heapMib)), handles: median(window.map((s) => s.handles)) };
}

function newSample(minute: number): Sample {
  return { minute, rssMib: 0, heapMib: 0, handles: 0, dbMib: 0, inline: [], serverErrors: 0 };
}

async function measure(sample: Sample, pid: number, url: string, dataDir: string, minute: number): Promise<Sample> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const gauge = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  const size = (path: string) => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  const db = databasePath(dataDir);
  return {
    ...sample,
    minute: round(minute, 2),
    rssMib: Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024,
    heapMib: gauge('svc_stt_nodejs_heap_size_used_bytes') / MIB,
    handles: gauge('svc_stt_nodejs_active_handles_total'),
    dbMib: (size(db) + size(`${db}-wal`)) / MIB,
  };
}

/** Minutes 5-10 and the last 5; a run shorter than 15 minutes compares its second third with its last. */
function driftWindows(samples: Sample[], minutes: number): { early: Sample[]; late: Sample[] } {
  if (minutes >= 15) return { early: samples.filter((s) => s.minute > 5 && s.minute <= 10), late: samples.filter((s) => s.minute > minutes - 5) };
  return { early: samples.filter((s) => s.minute > minutes / 3 && s.minute <= (2 * minutes) / 3), late: samples.filter((s) => s.minute > (2 * minutes) / 3) };
}

function sampleRow(s: Sample): Array<string | number> {
  return [
    s.minute,
    round(s.rssMib, 1),
    round(s.heapMib, 1),
    s.handles,
    round(s.dbMib, 2),
    s.inline.length,
    round(median(s.inline.length ? s.inline : [0]), 0),
    round(percentile(s.inline, 0.95), 0),
    s.serverErrors,
  ];
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
