// bench pool: throughput (audio seconds per wall second) of 1 worker x 2 threads versus 2 workers x
// 1 thread on the same batch of calls. Decides the default pool shape (src/engine/pool-shape.ts).
//   npm run bench -- pool [--arch tiny] [--calls 6] [--seconds 30] [--max-tokens 32]
import { availableParallelism } from 'node:os';

import { decodeAudio } from '../src/audio/index.js';
import { Engine } from '../src/engine/engine.js';
import { speechWav } from '../test/helpers/audio-fixtures.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, printResult, printTable, round } from './lib-report.js';

async function throughput(model: string, workers: number, threadsPerWorker: number, pcm: Float32Array, calls: number, maxTokens: number) {
  const engine = await Engine.open({ model, workers, threadsPerWorker, maxQueue: calls });
  try {
    // Warm every worker once (model reference, first allocations) outside the timing.
    await Promise.all(
      Array.from({ length: workers }, () => engine.transcribe(pcm.subarray(0, 16000 * 2), { language: 'en', maxTokens: 2, temperatureInc: 0 })),
    );
    const start = performance.now();
    await Promise.all(Array.from({ length: calls }, () => engine.transcribe(pcm, { language: 'en', temperatureInc: 0, maxTokens })));
    const wall = (performance.now() - start) / 1000;
    return { wall, audioPerSecond: (calls * pcm.length) / 16000 / wall };
  } finally {
    await engine.close();
  }
}

export async function run(args: string[]): Promise<void> {
  const arch = flag(args, 'arch', 'tiny') as 'tiny';
  const calls = Number(flag(args, 'calls', '6'));
  const seconds = Number(flag(args, 'seconds', '30'));
  const maxTokens = Number(flag(args, 'max-tokens', '32'));
  const cores = availableParallelism();
  const model = await testModelPath(arch);
  const pcm = await decodeAudio(await speechWav(seconds), { maxSeconds: seconds + 5, timeoutMs: 120_000 });

  const shapes: Array<[number, number]> = [
    [1, cores],
    [cores, 1],
  ];
  const results = [];
  for (const [workers, threads] of shapes) results.push({ workers, threads, ...(await throughput(model, workers, threads, pcm, calls, maxTokens)) });
  printTable(
    ['workers x threads', 'wall s', 'audio s per wall s'],
    results.map((r) => [`${r.workers} x ${r.threads}`, round(r.wall, 2), round(r.audioPerSecond, 2)]),
  );
  const [a, b] = results;
  console.log(`\n${calls} calls of ${seconds} s, ${arch} model, greedy, max ${maxTokens} tokens per segment, ${cores} cores`);
  printResult('pool', {
    [`w1x${cores}_audio_s_per_s`]: round(a.audioPerSecond, 2),
    [`w${cores}x1_audio_s_per_s`]: round(b.audioPerSecond, 2),
    ratio: round(b.audioPerSecond / a.audioPerSecond),
    arch,
    calls,
    audio_seconds: seconds,
  });
}
