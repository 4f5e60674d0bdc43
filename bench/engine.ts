// bench engine: our addon versus whisper.cpp's own CLI (same source, same build flags), tiny
// architecture, 60 s of speech, greedy without fallback, same threads, alternating runs.
//   npm run bench -- engine [--rounds 7] [--threads 2] [--seconds 60] [--arch tiny] [--seed 3]
// Random weights decide how long greedy decoding runs before it stops: with seed 1 this audio sends
// both programs into a repetition loop of several minutes; seed 3 decodes a normal amount of text.
// Either way both sides do identical work, which the token comparison in the differential test checks.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { decodeAudio } from '../src/audio/index.js';
import { loadNativeAddon } from '../src/engine/native-addon.js';
import { speechWav } from '../test/helpers/audio-fixtures.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { WHISPER_CLI } from '../test/helpers/whisper-cli.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

const exec = promisify(execFile);

export async function run(args: string[]): Promise<void> {
  const rounds = Number(flag(args, 'rounds', '7'));
  const threads = Number(flag(args, 'threads', '2'));
  const seconds = Number(flag(args, 'seconds', '60'));
  const arch = flag(args, 'arch', 'tiny') as 'tiny';
  const seed = Number(flag(args, 'seed', '3'));
  const model = await testModelPath(arch, seed);
  const wav = await speechWav(seconds);
  const pcm = await decodeAudio(wav, { maxSeconds: seconds + 5, timeoutMs: 120_000 });

  const addon = loadNativeAddon();
  const handle = await addon.loadModel(model);
  const options = { threads, language: 'en', strategy: 'greedy', temperatureInc: 0 } as const;

  const cliWall: number[] = [];
  const cliCompute: number[] = [];
  const ours: number[] = [];
  let tokensOurs = 0;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    // No -np: it would also silence the timings read below.
    const { stderr } = await exec(WHISPER_CLI, ['-m', model, '-f', wav, '-t', String(threads), '-l', 'en', '-bs', '1', '-nf'], {
      maxBuffer: 64 << 20,
    });
    cliWall.push(performance.now() - t0);
    // whisper_print_timings: "total time" runs from context init; minus "load time" = the transcription.
    const total = Number(/total time =\s*([\d.]+) ms/.exec(stderr)?.[1]);
    const load = Number(/load time =\s*([\d.]+) ms/.exec(stderr)?.[1]);
    cliCompute.push(total - load);

    const t1 = performance.now();
    const result = await addon.transcribe(handle, pcm, options);
    ours.push(performance.now() - t1);
    tokensOurs = result.segments.reduce((n, s) => n + s.tokens.length, 0);
  }
  handle.release();

  const ratio = median(ours) / median(cliCompute);
  const ratioWall = median(ours) / median(cliWall);
  printTable(
    ['run', 'whisper-cli wall ms', 'whisper-cli minus load ms', 'addon ms'],
    ours.map((o, i) => [i + 1, round(cliWall[i], 0), round(cliCompute[i], 0), round(o, 0)]),
  );
  console.log(`\n${arch} model (seed ${seed}), ${seconds} s of speech, ${threads} threads, greedy, no fallback; ${tokensOurs} tokens per run`);
  console.log(`median addon / whisper-cli (minus its model load): ${round(ratio)}  (bar <= 1.03)`);
  console.log(`median addon / whisper-cli process wall time:      ${round(ratioWall)}`);
  printResult('engine', {
    ratio: round(ratio),
    ratio_wall: round(ratioWall),
    addon_ms: round(median(ours), 0),
    cli_ms: round(median(cliCompute), 0),
    cli_wall_ms: round(median(cliWall), 0),
    arch,
    seed,
    audio_seconds: seconds,
    threads,
    rounds,
  });
}
