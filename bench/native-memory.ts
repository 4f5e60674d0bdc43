// bench native-memory: the server's resident memory under varied short audio without `language`, the
// review's case (900 inline requests of 2-102 KB WAV, 16 at a time, took a fresh server from 254 to
// 1,001 MiB and still growing): each recording's language detection runs over a context of its own
// length, and the engine's kept decoding states were unbounded (native/whisper-state.h). It prints RSS
// every 100 requests (the curve), then waits past SVC_KEPT_STATES_IDLE_MS and reads the idle server's
// RSS against its post-load figure. Bars (issue 49): RSS after the last request within 256 MiB of
// after 100; idle within 10 % of post-load.
//   npm run bench -- native-memory [--requests 600] [--concurrency 16] [--arch tiny] [--idle-ms 5000]
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { mulberry32 } from '../src/models/seeded-random.js';
import { firstKeyPath } from '../src/service/first-key-file.js';
import { speechWav, wavFileBytes } from '../test/helpers/audio-fixtures.js';
import { serve, serveEnv } from '../test/helpers/serve-process.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, printResult, printTable, round } from './lib-report.js';

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

export async function run(args: string[]): Promise<void> {
  const requests = Number(flag(args, 'requests', '600'));
  const concurrency = Number(flag(args, 'concurrency', '16'));
  const arch = flag(args, 'arch', 'tiny');
  const idleMs = Number(flag(args, 'idle-ms', '5000'));
  // 1 to 3.2 s of speech (2-102 KB as 16 kHz 16-bit WAV), cut at seeded places from one recording.
  const source = await readFile(await speechWav(12));
  const samples = new Int16Array(source.buffer, source.byteOffset + 44, (source.length - 44) / 2);
  const next = mulberry32(49);
  const random = () => next() / 2 ** 32;
  const bodies = Array.from({ length: 64 }, () => {
    const length = Math.round((1 + random() * 2.2) * 16_000);
    const start = Math.floor(random() * (samples.length - length));
    return wavFileBytes(samples.slice(start, start + length));
  });

  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-native-memory-'));
  const server = await serve(
    await serveEnv(dataDir, {
      SVC_MODEL: await testModelPath(arch as 'tiny', 3),
      SVC_KEPT_STATES_IDLE_MS: String(idleMs),
      SVC_RATE_LIMIT_PER_MINUTE: '1000000',
      SVC_MAX_QUEUE: '64',
      MALLOC_ARENA_MAX: '2',
    }),
  );
  const pid = server.child.pid!;
  try {
    const key = readFileSync(firstKeyPath(dataDir), 'utf8').trim();
    await new Promise((r) => setTimeout(r, 1000));
    const postLoad = rssMb(pid);
    const curve: Array<[number, number]> = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    let done = 0;
    const one = async () => {
      while (sent < requests) {
        const body = bodies[sent++ % bodies.length];
        const form = new FormData();
        form.append('model', 'svc-medical-1');
        form.append('response_format', 'json');
        form.append('file', new Blob([new Uint8Array(body)], { type: 'audio/wav' }), 'short.wav');
        const res = await fetch(`${server.url}/v1/audio/transcriptions`, { method: 'POST', body: form, headers: { authorization: `Bearer ${key}` } });
        const answer = await res.text();
        if (res.status !== 200 && !statuses.has(res.status)) console.error(`first ${res.status}: ${answer.slice(0, 300)}`);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        done++;
        if (done % 100 === 0) curve.push([done, rssMb(pid)]);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, one));
    const last = rssMb(pid);
    // Past the idle release, with a margin for the timer and the allocator's return of the pages.
    await new Promise((r) => setTimeout(r, idleMs + 3000));
    const idle = rssMb(pid);
    const after100 = curve[0]?.[1] ?? last;
    printTable(['requests', 'RSS MiB'], [[0, round(postLoad, 1)], ...curve.map(([n, mb]) => [n, round(mb, 1)]), ['idle', round(idle, 1)]]);
    printResult('native-memory', {
      requests,
      concurrency,
      arch,
      statuses: Object.fromEntries(statuses),
      post_load_mb: round(postLoad, 1),
      after_100_mb: round(after100, 1),
      after_last_mb: round(last, 1),
      growth_100_to_last_mb: round(last - after100, 1),
      idle_mb: round(idle, 1),
      idle_vs_post_load: round(idle / postLoad, 3),
      curve: curve.map(([n, mb]) => [n, round(mb, 1)]),
    });
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    await rm(dataDir, { recursive: true, force: true });
  }
}
