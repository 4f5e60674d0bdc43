// bench silence: audio that is half silence (60 s of speech in six 10 s pieces, each followed by 10 s
// of silence), tiny architecture, greedy without fallback, same threads: our pipeline (VAD, then only
// the speech decoded) versus whisper.cpp's own CLI on the whole file, alternating runs.
//   npm run bench -- silence [--rounds 5] [--threads 2] [--arch tiny] [--seed 3] [--pieces 6]
// (--pieces N: N pieces of speech, and N x 10 s of continuous speech for the speech-only figure.)
// Bar (docs/DESIGN.md "Benchmark bars"): ours / CLI <= 0.6; the physical floor is about 0.5 (the speech itself).
// Both sides decode without a token cap (whisper-cli has none), so random weights decide how much text
// each window runs to; the JSON reports the tokens decoded on each side.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { decodeAudio } from '../src/audio/index.js';
import { Engine } from '../src/engine/engine.js';
import { vadModelPath } from '../src/models/vad-model-path.js';
import { transcribePcm } from '../src/pipeline/transcribe-pcm.js';
import { interleavedSilenceWav, speechWav } from '../test/helpers/audio-fixtures.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { WHISPER_CLI } from '../test/helpers/whisper-cli.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

const exec = promisify(execFile);
const SPEECH_SECONDS = 10;
const SILENCE_SECONDS = 10;

export async function run(args: string[]): Promise<void> {
  const rounds = Number(flag(args, 'rounds', '5'));
  const threads = Number(flag(args, 'threads', '2'));
  const arch = flag(args, 'arch', 'tiny') as 'tiny';
  const seed = Number(flag(args, 'seed', '3'));
  const pieces = Number(flag(args, 'pieces', '6'));
  const model = await testModelPath(arch, seed);
  const wav = await interleavedSilenceWav(pieces, SPEECH_SECONDS, SILENCE_SECONDS);
  const pcm = await decodeAudio(wav, { maxSeconds: 600, timeoutMs: 120_000 });
  const engine = await Engine.open({ model, workers: 1, threadsPerWorker: threads, vadModel: vadModelPath() });

  const cli: number[] = [];
  const ours: number[] = [];
  const noVad: number[] = [];
  let noVadTokens = 0;
  let cliTokens = 0;
  let ourTokens = 0;
  let speechSeconds = 0;
  try {
    for (let i = 0; i < rounds; i++) {
      const { stderr } = await exec(WHISPER_CLI, ['-m', model, '-f', wav, '-t', String(threads), '-l', 'en', '-bs', '1', '-nf'], { maxBuffer: 64 << 20 });
      const total = Number(/total time =\s*([\d.]+) ms/.exec(stderr)?.[1]);
      const load = Number(/load time =\s*([\d.]+) ms/.exec(stderr)?.[1]);
      cli.push(total - load);
      cliTokens = Number(/decode time =.*\/\s*(\d+) runs/.exec(stderr)?.[1] ?? NaN);

      const t0 = performance.now();
      const outcome = await transcribePcm(engine, pcm, { language: 'en', decoding: { beamSize: 1, temperatureFallback: false } });
      ours.push(performance.now() - t0);
      ourTokens = outcome.segments.reduce((n, s) => n + s.tokens.length, 0);
      speechSeconds = outcome.speech.seconds;

      // The same pipeline with the VAD off: the whole file decoded by our own code, a second yardstick
      // that shows how much of the difference is the silence rather than what random weights decode.
      const t1 = performance.now();
      const whole = await transcribePcm(engine, pcm, { language: 'en', vad: false, decoding: { beamSize: 1, temperatureFallback: false } });
      noVad.push(performance.now() - t1);
      noVadTokens = whole.segments.reduce((n, s) => n + s.tokens.length, 0);
    }
  } finally {
    await engine.close();
  }
  const ratio = median(ours) / median(cli);
  const ratioNoVad = median(ours) / median(noVad);
  printTable(
    ['run', 'whisper-cli minus load ms', 'pipeline ms', 'pipeline --no-vad ms'],
    ours.map((o, i) => [i + 1, round(cli[i], 0), round(o, 0), round(noVad[i], 0)]),
  );
  const duration = pcm.length / 16_000;
  console.log(
    `\n${arch} model (seed ${seed}), ${duration} s of audio (${pieces} x ${SPEECH_SECONDS} s speech + ${SILENCE_SECONDS} s silence), ` +
      `${threads} threads, greedy, no fallback`,
  );
  console.log(
    `speech found by the VAD: ${round(speechSeconds, 2)} s; whisper-cli ${cliTokens} decoder runs; tokens: pipeline ${ourTokens}, --no-vad ${noVadTokens}`,
  );
  console.log(`median pipeline / whisper-cli (minus its model load): ${round(ratio)}  (bar <= 0.6)`);
  console.log(`median pipeline / pipeline --no-vad:                  ${round(ratioNoVad)}`);
  // The other side of the bar: on speech alone the VAD costs its own time and saves only the pauses.
  const speechOnly = await speechOnlyRatio(model, threads, rounds, pieces * SPEECH_SECONDS);
  console.log(
    `speech only (${pieces * SPEECH_SECONDS} s): pipeline / pipeline --no-vad: ${round(speechOnly.ratio)}; ` +
      `the VAD's own time: ${round(speechOnly.vadMs, 0)} ms, ${round(speechOnly.vadShare * 100, 1)} % of the no-VAD pipeline (bar <= 5 %)`,
  );
  printResult('silence', {
    ratio: round(ratio),
    ratio_no_vad: round(ratioNoVad),
    pipeline_ms: round(median(ours), 0),
    no_vad_ms: round(median(noVad), 0),
    speech_only_ratio: round(speechOnly.ratio),
    speech_only_vad_ms: round(speechOnly.vadMs, 0),
    speech_only_vad_share: round(speechOnly.vadShare, 4),
    cli_ms: round(median(cli), 0),
    speech_seconds: round(speechSeconds, 2),
    audio_seconds: duration,
    arch,
    seed,
    threads,
    rounds,
    pieces,
  });
}

/** `seconds` (60) of continuous speech through the pipeline with and without the VAD, alternating. */
async function speechOnlyRatio(model: string, threads: number, rounds: number, seconds: number) {
  const pcm = await decodeAudio(await speechWav(seconds), { maxSeconds: seconds + 10, timeoutMs: 120_000 });
  const engine = await Engine.open({ model, workers: 1, threadsPerWorker: threads, vadModel: vadModelPath() });
  const decoding = { beamSize: 1, temperatureFallback: false };
  const withVad: number[] = [];
  const without: number[] = [];
  const vad: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      await transcribePcm(engine, pcm, { language: 'en', decoding });
      withVad.push(performance.now() - t0);
      const t1 = performance.now();
      await transcribePcm(engine, pcm, { language: 'en', vad: false, decoding });
      without.push(performance.now() - t1);
      vad.push((await engine.detectSpeech(pcm)).timings.totalMs);
    }
  } finally {
    await engine.close();
  }
  // Random weights decode the packed speech differently from the whole file, so the ratio mixes the VAD's
  // cost with a different decode; the VAD's own time over the no-VAD pipeline's is its overhead.
  return { ratio: median(withVad) / median(without), vadMs: median(vad), vadShare: median(vad) / median(without) };
}
