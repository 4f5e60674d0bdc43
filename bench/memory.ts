// bench memory: RSS of a process with 1 worker versus 2 workers on the `small` architecture. The
// weights are loaded once per process, so the second worker should add its decoding state only.
//   npm run bench -- memory [--arch small]
import { execFile } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { decodeAudio } from '../src/audio/index.js';
import { speechWav } from '../test/helpers/audio-fixtures.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, printResult, printTable, round } from './lib-report.js';

const exec = promisify(execFile);
const probe = join(dirname(fileURLToPath(import.meta.url)), 'lib-memory-probe.ts');

async function measure(model: string, workers: number, pcmFile: string) {
  const { stdout } = await exec(process.execPath, ['--import', 'tsx', probe, model, String(workers), pcmFile], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { rss_mb: number; peak_mb: number };
}

export async function run(args: string[]): Promise<void> {
  const arch = flag(args, 'arch', 'small') as 'small';
  const model = await testModelPath(arch);
  const modelMb = statSync(model).size / (1024 * 1024);
  const pcm = await decodeAudio(await speechWav(5), { maxSeconds: 30, timeoutMs: 60_000 });
  const pcmFile = join(tmpdir(), `svc-bench-memory-${process.pid}.f32`);
  writeFileSync(pcmFile, Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));

  const one = await measure(model, 1, pcmFile);
  const two = await measure(model, 2, pcmFile);
  const growth = two.rss_mb - one.rss_mb;
  printTable(
    ['workers', 'RSS MB', 'peak RSS MB'],
    [
      [1, round(one.rss_mb, 1), round(one.peak_mb, 1)],
      [2, round(two.rss_mb, 1), round(two.peak_mb, 1)],
    ],
  );
  console.log(
    `\n${arch} model file: ${round(modelMb, 1)} MB; second worker adds ${round(growth, 1)} MB` + ` (${round(growth / modelMb, 3)} of the model; bar < 0.5)`,
  );
  printResult('memory', {
    rss1_mb: round(one.rss_mb, 1),
    rss2_mb: round(two.rss_mb, 1),
    model_mb: round(modelMb, 1),
    growth_ratio: round(growth / modelMb, 3),
    arch,
  });
}
