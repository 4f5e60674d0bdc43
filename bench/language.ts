// bench language: `language=auto` (every utterance detected, runs transcribed in their languages)
// versus the same file with its language given, through the same pipeline, alternating runs. The
// file is the silence benchmark's: 60 s of speech interleaved with 60 s of silence (--pieces of 10 s each).
//   npm run bench -- language [--rounds 5] [--threads 2] [--arch tiny] [--seed 3] [--max-tokens 0] [--pieces 6]
// Bar (docs/DESIGN.md "Benchmark bars"): auto / explicit <= 1.25.
import { decodeAudio } from '../src/audio/index.js';
import { LANGUAGE_FAMILIES } from '../src/domain/language-families.js';
import { Engine } from '../src/engine/engine.js';
import { vadModelPath } from '../src/models/vad-model-path.js';
import { transcribePcm } from '../src/pipeline/transcribe-pcm.js';
import { interleavedSilenceWav } from '../test/helpers/audio-fixtures.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

export async function run(args: string[]): Promise<void> {
  const rounds = Number(flag(args, 'rounds', '5'));
  const threads = Number(flag(args, 'threads', '2'));
  const arch = flag(args, 'arch', 'tiny') as 'tiny';
  const seed = Number(flag(args, 'seed', '3'));
  const maxTokens = Number(flag(args, 'max-tokens', '0'));
  const pieces = Number(flag(args, 'pieces', '6'));
  const model = await testModelPath(arch, seed);
  const wav = await interleavedSilenceWav(pieces, 10, 10);
  const pcm = await decodeAudio(wav, { maxSeconds: 600, timeoutMs: 120_000 });
  const engine = await Engine.open({ model, workers: 1, threadsPerWorker: threads, vadModel: vadModelPath() });
  const decoding = { beamSize: 1, temperatureFallback: false, maxTokens };

  const explicit: number[] = [];
  const auto: number[] = [];
  let utterances = 0;
  let languages: string[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      await transcribePcm(engine, pcm, { language: 'en', decoding });
      explicit.push(performance.now() - t0);
      const t1 = performance.now();
      // Hinted with all eight families: random weights often find an unsupported language likeliest,
      // which unhinted auto refuses; the hints keep the same work (every utterance detected) going.
      const outcome = await transcribePcm(engine, pcm, { language: 'auto', languageHints: [...LANGUAGE_FAMILIES], decoding });
      auto.push(performance.now() - t1);
      utterances = outcome.detection?.utterances ?? 0;
      languages = outcome.detection?.languages ?? [];
    }
  } finally {
    await engine.close();
  }
  const ratio = median(auto) / median(explicit);
  printTable(
    ['run', 'explicit ms', 'auto ms'],
    auto.map((a, i) => [i + 1, round(explicit[i], 0), round(a, 0)]),
  );
  console.log(`\n${arch} model (seed ${seed}), ${pcm.length / 16_000} s of audio, ${threads} threads, greedy, no fallback, max tokens ${maxTokens || 'none'}`);
  console.log(`auto: ${utterances} utterances, languages ${languages.join(', ') || '-'} (random weights: the languages are noise)`);
  console.log(`median auto / explicit: ${round(ratio)}  (bar <= 1.25)`);
  printResult('language', {
    ratio: round(ratio),
    auto_ms: round(median(auto), 0),
    explicit_ms: round(median(explicit), 0),
    utterances,
    languages: languages.length,
    arch,
    seed,
    threads,
    rounds,
  });
}
