// bench parallel: one recording on the whole machine. A 5-minute speech recording (espeak-ng, with
// pauses) through the pipeline (VAD, packed windows, recognition) with its windows decoded at once
// on 2 workers x 1 thread, against the same windows one at a time (1 worker x 1 thread: the same
// calls, the same threads per call), alternating. The text must be identical (docs/DESIGN.md decision 10).
//   npm run bench -- parallel [--rounds 3] [--seconds 300] [--workers 2] [--arch tiny] [--max-tokens 32]
// Bar (docs/DESIGN.md "Benchmark bars"): parallel / sequential <= 0.6.
import { decodeAudio } from '../src/audio/index.js';
import { Engine } from '../src/engine/engine.js';
import { vadModelPath } from '../src/models/vad-model-path.js';
import { transcribePcm } from '../src/pipeline/transcribe-pcm.js';
import { interleavedSilenceWav } from '../test/helpers/audio-fixtures.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

export async function run(args: string[]): Promise<void> {
  const rounds = Number(flag(args, 'rounds', '3'));
  const seconds = Number(flag(args, 'seconds', '300'));
  const workers = Number(flag(args, 'workers', '2'));
  const arch = flag(args, 'arch', 'tiny') as 'tiny';
  const maxTokens = Number(flag(args, 'max-tokens', '32'));
  const model = await testModelPath(arch);
  // Stretches of 12 s of speech with 1.5 s pauses between them, `seconds` long in all.
  const pieces = Math.max(1, Math.round(seconds / 13.5));
  const pcm = await decodeAudio(await interleavedSilenceWav(pieces, 12, 1.5, { seed: 3 }), { maxSeconds: seconds + 60, timeoutMs: 120_000 });
  const parallel = await Engine.open({ model, workers, threadsPerWorker: 1, vadModel: vadModelPath() });
  const sequential = await Engine.open({ model, workers: 1, threadsPerWorker: 1, vadModel: vadModelPath() });
  const options = { language: 'en', decoding: { beamSize: 1, maxTokens, temperatureFallback: false } };
  try {
    const transcribe = async (engine: Engine) => {
      const started = performance.now();
      const outcome = await transcribePcm(engine, pcm, options);
      return { ms: performance.now() - started, text: outcome.text, segments: JSON.stringify(outcome.segments) };
    };
    await transcribe(parallel); // warm both
    await transcribe(sequential);
    const calls = parallel.stats.calls.transcribe;
    const rows: Array<[number, number, number]> = [];
    let identical = true;
    for (let i = 0; i < rounds; i++) {
      const a = await transcribe(parallel);
      const b = await transcribe(sequential);
      identical &&= a.text === b.text && a.segments === b.segments;
      rows.push([i + 1, a.ms, b.ms]);
    }
    const windows = (parallel.stats.calls.transcribe - calls) / rounds;
    const ratio = median(rows.map((r) => r[1])) / median(rows.map((r) => r[2]));
    printTable(
      ['run', `parallel (${workers} x 1) ms`, 'sequential (1 x 1) ms'],
      rows.map(([run, a, b]) => [run, round(a, 0), round(b, 0)]),
    );
    console.log(`\n${arch} model, ${round(pcm.length / 16_000, 1)} s recording, ${windows} windows, max ${maxTokens} tokens per segment`);
    console.log(`text and segments identical: ${identical}`);
    console.log(`median parallel / sequential: ${round(ratio)}  (bar <= 0.6)`);
    printResult('parallel', {
      ratio: round(ratio),
      identical,
      parallel_ms: round(median(rows.map((r) => r[1])), 0),
      sequential_ms: round(median(rows.map((r) => r[2])), 0),
      workers,
      windows,
      audio_seconds: round(pcm.length / 16_000, 1),
      arch,
      rounds,
    });
  } finally {
    await parallel.close();
    await sequential.close();
  }
}
