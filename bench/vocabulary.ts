// bench vocabulary: the same 60 s request with 20 vocabulary terms (prompted decode + the context-free
// check decode on the same encoder output + the safety comparison) versus without vocabulary,
// through the same pipeline, alternating runs.
//   npm run bench -- vocabulary [--rounds 5] [--threads 2] [--arch tiny] [--seed 3] [--seconds 60]
// Bar (docs/DESIGN.md "Benchmark bars"): with / without <= 1.3.
import { decodeAudio } from '../src/audio/index.js';
import { Engine } from '../src/engine/engine.js';
import { vadModelPath } from '../src/models/vad-model-path.js';
import { transcribePcm } from '../src/pipeline/transcribe-pcm.js';
import { speechWav } from '../test/helpers/audio-fixtures.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

const TERMS = [
  'metoprolol',
  'lisinopril',
  'atorvastatin',
  'amoxicillin',
  'hydrochlorothiazide',
  'warfarin',
  'apixaban',
  'furosemide',
  'spironolactone',
  'levothyroxine',
  'metformin',
  'insulin glargine',
  'omeprazole',
  'pantoprazole',
  'albuterol',
  'prednisone',
  'gabapentin',
  'sertraline',
  'tachycardia',
  'bradycardia',
];

export async function run(args: string[]): Promise<void> {
  const rounds = Number(flag(args, 'rounds', '5'));
  const threads = Number(flag(args, 'threads', '2'));
  const arch = flag(args, 'arch', 'tiny') as 'tiny';
  const seed = Number(flag(args, 'seed', '3'));
  const seconds = Number(flag(args, 'seconds', '60'));
  const model = await testModelPath(arch, seed);
  const pcm = await decodeAudio(await speechWav(seconds), { maxSeconds: 600, timeoutMs: 120_000 });
  const engine = await Engine.open({ model, workers: 1, threadsPerWorker: threads, vadModel: vadModelPath() });
  // Random weights run away: greedy, no temperature fallback, like with like.
  const decoding = { beamSize: 1, temperatureFallback: false, maxTokens: 0 };

  const without: number[] = [];
  const withTerms: number[] = [];
  let audit: Awaited<ReturnType<typeof transcribePcm>>['vocabulary'] = null;
  try {
    await transcribePcm(engine, pcm, { language: 'en', decoding }); // warm-up
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      await transcribePcm(engine, pcm, { language: 'en', decoding });
      without.push(performance.now() - t0);
      const t1 = performance.now();
      const outcome = await transcribePcm(engine, pcm, { language: 'en', decoding, vocabulary: TERMS });
      withTerms.push(performance.now() - t1);
      audit = outcome.vocabulary;
    }
  } finally {
    await engine.close();
  }
  const ratio = median(withTerms) / median(without);
  printTable(
    ['run', 'without ms', 'with 20 terms ms'],
    without.map((w, i) => [i + 1, round(w, 0), round(withTerms[i], 0)]),
  );
  console.log(`\n${arch} model (seed ${seed}), ${pcm.length / 16_000} s of speech, ${threads} threads, greedy, no fallback`);
  console.log(
    `with terms: ${audit?.prompted_chunks ?? 0} windows prompted and checked, ` +
      `${audit?.fallback_chunks ?? 0} fell back (random weights: prompted and context-free texts differ)`,
  );
  console.log(`median with / without: ${round(ratio)}  (bar <= 1.3)`);
  printResult('vocabulary', {
    ratio: round(ratio),
    with_ms: round(median(withTerms), 0),
    without_ms: round(median(without), 0),
    windows: audit?.prompted_chunks ?? 0,
    fallback_windows: audit?.fallback_chunks ?? 0,
    arch,
    seed,
    threads,
    rounds,
  });
}
