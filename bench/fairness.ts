// bench fairness: does a long job leave the service responsive? A 20 s inline request's latency while a
// 30-minute job runs, over the same request's latency with the box idle; and 2 realtime sessions'
// latencies while the job runs, beside the same sessions with the box idle. Tiny model, the default
// pool for this box, through the real service.
//   npm run bench -- fairness [--rounds 10] [--job-seconds 1800] [--inline-seconds 20] [--urgent-workers N] [--arch tiny] [--pieces 5]
// (--urgent-workers 0 turns off holding batch calls for urgent ones: what that lever gives. --pieces: the
// realtime sessions' stretches of 4 s speech and 1.5 s silence; --arch micro and few pieces make a smoke run.)
// Order: idle inline rounds, idle realtime, then the job is accepted and, once its first chunk is
// being transcribed, the same inline rounds (a random pause before each, so they land at every phase
// of the job's windows) and realtime sessions. The JSON says whether the job was still running at
// the end (a job that finished early would make the busy figures idle ones).
// Bars (docs/DESIGN.md "Benchmark bars"): ratio <= 1.5; realtime as in bench realtime.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadConfig } from '../src/config/load-config.js';
import { type RunningService, startService } from '../src/service/start-service.js';
import { interleavedSilenceWav, mulberry32, speechWav } from '../test/helpers/audio-fixtures.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { percentile, replay, summary } from './lib-realtime-replay.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

interface Phase {
  inlineMs: number[];
  realtime: { partial: ReturnType<typeof summary>; turnFinal: ReturnType<typeof summary>; failed: number };
}

async function post(service: RunningService, wav: Buffer, key: string): Promise<Response> {
  const form = new FormData();
  form.append('model', 'svc-medical-1');
  form.append('language', 'en');
  form.append('file', new Blob([wav as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'visit.wav');
  return fetch(`${service.url}/v1/audio/transcriptions`, { method: 'POST', body: form, headers: { authorization: `Bearer ${key}` } });
}

async function inlineRounds(service: RunningService, wav: Buffer, key: string, rounds: number, pause: () => number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < rounds; i++) {
    await new Promise((resolve) => setTimeout(resolve, pause()));
    const started = performance.now();
    const res = await post(service, wav, key);
    if (res.status !== 200) throw new Error(`inline request answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
  }
  return latencies;
}

async function realtimeSessions(service: RunningService, key: string, audio: Uint8Array[], label: string): Promise<Phase['realtime']> {
  const runs = await Promise.all(audio.map((pcm, i) => replay(service.realtime!.url, key, pcm, `${label}-${i}`, false)));
  return {
    partial: summary(runs.flatMap((r) => r.partials)),
    turnFinal: summary(runs.flatMap((r) => r.turnFinals)),
    failed: runs.filter((r) => r.closeCode !== 1000).length,
  };
}

async function jobStatus(service: RunningService, key: string, id: string): Promise<string> {
  const res = await fetch(`${service.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { status: string }).status;
}

/** A counter or gauge of the service's /metrics, summed over its series (those with `label`, if given). */
async function metric(service: RunningService, name: string, label = ''): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) && line.includes(label))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

export async function run(args: string[]): Promise<void> {
  const rounds = Number(flag(args, 'rounds', '10'));
  const jobSeconds = Number(flag(args, 'job-seconds', '1800'));
  const inlineSeconds = Number(flag(args, 'inline-seconds', '20'));
  const urgentWorkers = flag(args, 'urgent-workers', '');
  const arch = flag(args, 'arch', 'tiny') as 'tiny';
  const pieces = Number(flag(args, 'pieces', '5'));
  const model = await testModelPath(arch);
  const inlineWav = await readFile(await speechWav(inlineSeconds, { seed: 5 }));
  const jobWav = await readFile(await speechWav(jobSeconds, { seed: 7 }));
  const sessionAudio = await Promise.all([1, 2].map(async (seed) => (await readFile(await interleavedSilenceWav(pieces, 4, 1.5, { seed }))).subarray(44)));
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-fairness-'));
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_REALTIME_PORT: '0',
    SVC_CONSOLE_PORT: '0',
    SVC_MODEL: model,
    SVC_MAX_TOKENS: '32',
    SVC_TEMPERATURE_FALLBACK: 'false',
    SVC_LOG_LEVEL: 'silent',
    SVC_MAX_AUDIO_SECONDS: String(Math.max(7200, jobSeconds + 60)),
    ...(urgentWorkers !== '' ? { SVC_URGENT_WORKERS: urgentWorkers } : {}),
  });
  const service = await startService(config, { logger: false });
  const key = service.firstKey!;
  const random = mulberry32(11);
  try {
    // Warm both paths (model pages, ffmpeg, the first session).
    await (await post(service, inlineWav, key)).arrayBuffer();
    await replay(service.realtime!.url, key, sessionAudio[0].subarray(0, 3 * 32_000), 'warm-up', false);

    const idle: Phase = {
      inlineMs: await inlineRounds(service, inlineWav, key, rounds, () => 0),
      realtime: await realtimeSessions(service, key, sessionAudio, 'idle'),
    };

    const accepted = await post(service, jobWav, key);
    if (accepted.status !== 202) throw new Error(`the job was not accepted: ${accepted.status} ${await accepted.text()}`);
    const job = (await accepted.json()) as { id: string };
    // Busy once the job's first windows are on the workers.
    const until = Date.now() + 120_000;
    while ((await metric(service, 'svc_stt_engine_class_dispatched_total', 'class="batch"')) === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const busy: Phase = {
      inlineMs: await inlineRounds(service, inlineWav, key, rounds, () => random() * 1500),
      realtime: await realtimeSessions(service, key, sessionAudio, 'busy'),
    };
    const stillRunning = (await jobStatus(service, key, job.id)) === 'running';
    const holds = await metric(service, 'svc_stt_engine_holds_total');
    const batchCalls = await metric(service, 'svc_stt_engine_class_dispatched_total', 'class="batch"');

    const p95 = (values: number[]) => round(percentile(values, 95), 0);
    const ratio = percentile(busy.inlineMs, 95) / percentile(idle.inlineMs, 95);
    printTable(
      [
        'box',
        'inline p50 ms',
        'inline p95 ms',
        'partial p50 ms',
        'partial p95 ms',
        'turn_final p50 ms',
        'turn_final p95 ms',
        'turn_finals',
        'sessions not closed 1000',
      ],
      (
        [
          ['idle', idle],
          ['job running', busy],
        ] as const
      ).map(([box, phase]) => [
        box,
        round(median(phase.inlineMs), 0),
        p95(phase.inlineMs),
        phase.realtime.partial.p50,
        phase.realtime.partial.p95,
        phase.realtime.turnFinal.p50,
        phase.realtime.turnFinal.p95,
        phase.realtime.turnFinal.count,
        phase.realtime.failed,
      ]),
    );
    console.log(
      `\n${arch} model, ${inlineSeconds} s inline request x ${rounds} per phase, a ${jobSeconds} s job, 2 realtime sessions of ${pieces * 5.5} s; ` +
        `urgent workers ${urgentWorkers === '' ? 'default' : urgentWorkers}; batch calls ${batchCalls}, held ${holds} times; ` +
        `job still running at the end: ${stillRunning}`,
    );
    console.log(`inline p95 with the job running / idle: ${round(ratio, 2)}  (bar <= 1.5)`);
    console.log('realtime bars at 2 sessions: partial p95 < 500 ms, turn_final p95 < 1000 ms');
    printResult('fairness', {
      ratio: round(ratio, 3),
      realtime_turn_final_p95_ms: busy.realtime.turnFinal.p95,
      realtime_partial_p95_ms: busy.realtime.partial.p95,
      inline_idle_p95_ms: p95(idle.inlineMs),
      inline_busy_p95_ms: p95(busy.inlineMs),
      idle_realtime_turn_final_p95_ms: idle.realtime.turnFinal.p95,
      idle_realtime_partial_p95_ms: idle.realtime.partial.p95,
      turn_finals: busy.realtime.turnFinal.count,
      holds,
      urgent_workers: urgentWorkers === '' ? 'default' : Number(urgentWorkers),
      arch,
      job_running_throughout: stillRunning,
      rounds,
    });
  } finally {
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
