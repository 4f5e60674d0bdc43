// bench vocabulary: the same 60 s request with 20 vocabulary terms (prompted decode + the context-free
// check decode on the same encoder output + the safety comparison) versus without vocabulary,
// through the same pipeline, alternating runs.
//   npm run bench -- vocabulary [--rounds 5] [--threads 2] [--arch tiny] [--seed 3] [--seconds 60] [--words]
// Two cases, reported apart, because they cost differently and random weights produce only one:
//   check passes   what real weights produce on most windows: the prompted text stands. Random weights
//                  make the prompted and context-free texts differ, so this case is forced: the engine
//                  is wrapped so that each window's check text is its prompted text, after the addon has
//                  computed both decodes as ever (the compute is the real one; only the comparison is
//                  made to agree);
//   falls back     what random weights produce on every window: the context-free text stands (with
//                  --words, decoded once more by whisper_full for its token timing).
// Decoder steps per request are printed too (whisper_full's, the check's apart): random weights decode
// to lengths real speech would not, and the ratio is only like with like where the runs decode alike.
// So is each case's process CPU time and the addon's encoder / decoder / check time (from the engine's
// spans, lib-engine-stages.ts), which a busy machine disturbs less than the wall clock.
// Bar (docs/DESIGN.md "Benchmark bars"): with / without <= 1.3 when the check passes.
import { decodeAudio } from '../src/audio/index.js';
import { Engine } from '../src/engine/engine.js';
import { vadModelPath } from '../src/models/vad-model-path.js';
import { transcribePcm } from '../src/pipeline/transcribe-pcm.js';
import { speechWav } from '../test/helpers/audio-fixtures.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { EngineStageCollector } from './lib-engine-stages.js';
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
  const wordTimestamps = args.includes('--words');
  const engine = await Engine.open({ model, workers: 1, threadsPerWorker: threads, vadModel: vadModelPath() });
  const passing = agreeingChecks(engine);
  // Random weights run away: greedy, no temperature fallback, like with like.
  const decoding = { beamSize: 1, temperatureFallback: false, maxTokens: 0 };

  type Audit = Awaited<ReturnType<typeof transcribePcm>>['vocabulary'];
  const cases = { without: new Case(), passes: new Case(), fallback: new Case() };
  const collector = new EngineStageCollector();
  const timed = async (into: Case, on: Engine, vocabulary: string[] | undefined): Promise<Audit> => {
    const steps = engine.stats.decoderSteps;
    collector.take();
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const outcome = await transcribePcm(on, pcm, { language: 'en', decoding, wordTimestamps, ...(vocabulary ? { vocabulary } : {}) });
    into.ms.push(performance.now() - t0);
    into.steps.push(engine.stats.decoderSteps - steps);
    const used = process.cpuUsage(cpu);
    into.cpuMs.push((used.user + used.system) / 1000);
    const { calls } = collector.take();
    into.stages.push(['encodeMs', 'decodeMs', 'checkMs'].map((k) => calls.reduce((sum, c) => sum + c[k as 'encodeMs'], 0)) as [number, number, number]);
    return outcome.vocabulary;
  };
  let passAudit: Audit = null;
  let fallbackAudit: Audit = null;
  try {
    await transcribePcm(engine, pcm, { language: 'en', decoding }); // warm-up
    for (let i = 0; i < rounds; i++) {
      await timed(cases.without, engine, undefined);
      passAudit = await timed(cases.passes, passing, TERMS);
      fallbackAudit = await timed(cases.fallback, engine, TERMS);
    }
  } finally {
    await engine.close();
    await collector.close();
  }
  const ratioPasses = median(cases.passes.ms) / median(cases.without.ms);
  const ratioFallback = median(cases.fallback.ms) / median(cases.without.ms);
  printTable(
    ['run', 'without ms', 'check passes ms', 'falls back ms', 'decoder steps without / passes / falls back'],
    cases.without.ms.map((w, i) => [
      i + 1,
      round(w, 0),
      round(cases.passes.ms[i], 0),
      round(cases.fallback.ms[i], 0),
      `${cases.without.steps[i]} / ${cases.passes.steps[i]} / ${cases.fallback.steps[i]}`,
    ]),
  );
  console.log("\nmedians per request: wall, process CPU, and the addon's own encoder / decoder / check time (ms)");
  printTable(
    ['case', 'wall', 'cpu', 'encode', 'decode', 'check'],
    (Object.entries(cases) as Array<[string, Case]>).map(([name, c]) => {
      const st = c.medianStages();
      return [name, round(median(c.ms), 0), round(median(c.cpuMs), 0), st.encode_ms, st.decode_ms, st.check_ms];
    }),
  );
  console.log(
    `\n${arch} model (seed ${seed}), ${pcm.length / 16_000} s of speech, ${threads} threads, greedy, no fallback, ` +
      `word timestamps ${wordTimestamps ? 'on' : 'off'}`,
  );
  console.log(
    `check passes: ${passAudit?.prompted_chunks ?? 0} windows prompted and checked, ${passAudit?.fallback_chunks ?? 0} fell back ` +
      '(forced: each check text made the prompted one after both decodes)',
  );
  console.log(
    `falls back: ${fallbackAudit?.prompted_chunks ?? 0} windows prompted and checked, ${fallbackAudit?.fallback_chunks ?? 0} fell back ` +
      '(random weights: prompted and context-free texts differ)',
  );
  console.log(`median with / without: ${round(ratioPasses)} when the check passes (bar <= 1.3), ${round(ratioFallback)} when it falls back`);
  printResult('vocabulary', {
    ratio_when_check_passes: round(ratioPasses),
    ratio_when_fallback: round(ratioFallback),
    without_ms: round(median(cases.without.ms), 0),
    passes_ms: round(median(cases.passes.ms), 0),
    fallback_ms: round(median(cases.fallback.ms), 0),
    cpu_ratio_when_check_passes: round(median(cases.passes.cpuMs) / median(cases.without.cpuMs)),
    cpu_ratio_when_fallback: round(median(cases.fallback.cpuMs) / median(cases.without.cpuMs)),
    stage_ms: { without: cases.without.medianStages(), passes: cases.passes.medianStages(), fallback: cases.fallback.medianStages() },
    decoder_steps: { without: median(cases.without.steps), passes: median(cases.passes.steps), fallback: median(cases.fallback.steps) },
    windows: fallbackAudit?.prompted_chunks ?? 0,
    passes_fallback_windows: passAudit?.fallback_chunks ?? 0,
    fallback_windows: fallbackAudit?.fallback_chunks ?? 0,
    word_timestamps: wordTimestamps,
    arch,
    seed,
    threads,
    rounds,
  });
}

class Case {
  ms: number[] = [];
  steps: number[] = [];
  cpuMs: number[] = [];
  /** The addon's encoder, decoder and check ms, summed over the request's calls. */
  stages: Array<[number, number, number]> = [];

  medianStages(): { encode_ms: number; decode_ms: number; check_ms: number } {
    const at = (i: number) => round(median(this.stages.map((s) => s[i])), 0);
    return { encode_ms: at(0), decode_ms: at(1), check_ms: at(2) };
  }
}

/**
 * The engine, but each window's context-free check comes back with its prompted text (after the addon
 * decoded both): the safety check passes, as it does with real weights on most windows, at the real cost.
 */
function agreeingChecks(engine: Engine): Engine {
  const agreeing = Object.create(engine) as Engine;
  agreeing.transcribe = async (pcm, options, call) => {
    const transcript = await engine.transcribe(pcm, options, call);
    if (!transcript.check) return transcript;
    return { ...transcript, check: { ...transcript.check, text: transcript.text, segments: transcript.segments, capped: false } };
  };
  return agreeing;
}
