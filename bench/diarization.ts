// bench diarization: how well and how cheaply the native diarizer tells voices apart.
// - DER (0.25 s collar, overlap counted per speaker; test/helpers/diarization-error-rate.ts) on the
//   generated 2-, 3- and 4-voice espeak-ng conversations, three seeds each (--seeds), on the Silero VAD's regions;
// - overhead: the diarization of each conversation over the transcription of the same audio (the
//   same pipeline with the language given, greedy, no fallback), alternating, medians per file.
// - known speakers (bench/lib-known-speakers.ts): on the same conversations and on the short
//   exchanges of every EXCHANGE_PAIRS pair (or the first --pairs), the share of turns named correctly from reference clips
//   and the share named wrongly (false attribution), from 9 s clips (--reference-seconds 2 to 10) recorded
//   as the conversations are (--reference-channel tilt or phone: through another "microphone"); --sweep
//   adds the table that chose the threshold.
// - where the diarizer's time goes: each stage's milliseconds per minute of audio (medians over the
//   conversations' runs) and its share of the diarizer's time;
// - the short exchanges (bench/diarization-short.ts, 20 seeds of two voices: `short_split`; --short-seeds N takes
//   N two-voice seeds, N / 2 lone ones, at most 6 three-voice ones) and the real
//   development recordings (bench/diarization-real.ts: `dev`, DER per file), as those benches print them.
//   npm run bench -- diarization [--rounds 3] [--threads 2] [--arch tiny] [--seed 3] [--max-tokens 0]
//                                [--sweep] [--reference-seconds 9] [--reference-channel same] [--seeds 3] [--pairs 10] [--short-seeds 20]
// Bars (docs/DESIGN.md "Benchmark bars"): overhead <= 0.10, false attribution <= 0.01, short_split >= 0.95.
// DER: as low as it goes, reported as it is (the real recordings' honestly).
import { decodeAudio } from '../src/audio/index.js';
import { Engine } from '../src/engine/engine.js';
import { DIARIZATION_STAGES, type DiarizationStages, type VoiceProfile } from '../src/engine/speaker-diarizer.js';
import { vadModelPath } from '../src/models/vad-model-path.js';
import { transcribePcm } from '../src/pipeline/transcribe-pcm.js';
import { conversation, CONVERSATION_VOICES, exchange, EXCHANGE_PAIRS } from '../test/helpers/conversations.js';
import { diarizationErrorRate } from '../test/helpers/diarization-error-rate.js';
import { testModelPath } from '../test/helpers/test-models.js';
import type { ReferenceChannel } from '../test/helpers/voice-references.js';
import { DEV_RECORDING_HEADERS, DEV_RECORDINGS_DIR, measureDevRecordings } from './diarization-real.js';
import { measureShortExchanges, SHORT_EXCHANGE_HEADERS } from './diarization-short.js';
import { type NamedRecording, referenceProfiles, scoreNaming } from './lib-known-speakers.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

export async function run(args: string[]): Promise<void> {
  const rounds = Number(flag(args, 'rounds', '3'));
  const threads = Number(flag(args, 'threads', '2'));
  const arch = flag(args, 'arch', 'tiny') as 'tiny';
  const seed = Number(flag(args, 'seed', '3'));
  const maxTokens = Number(flag(args, 'max-tokens', '0'));
  const clipSeconds = Number(flag(args, 'reference-seconds', '9'));
  const channel = flag(args, 'reference-channel', 'same') as ReferenceChannel;
  const seeds = Array.from({ length: Number(flag(args, 'seeds', '3')) }, (_, i) => i + 1);
  const pairs = EXCHANGE_PAIRS.slice(0, Number(flag(args, 'pairs', String(EXCHANGE_PAIRS.length))));
  const shortSeeds = Number(flag(args, 'short-seeds', '20'));
  const engine = await Engine.open({ model: await testModelPath(arch, seed), workers: 1, threadsPerWorker: threads, vadModel: vadModelPath() });
  const decoding = { beamSize: 1, temperatureFallback: false, maxTokens };
  const rows: Array<Array<string | number>> = [];
  const der: Record<number, number[]> = { 2: [], 3: [], 4: [] };
  const ratios: number[] = [];
  const perMinute = Object.fromEntries(DIARIZATION_STAGES.map((stage) => [stage, [] as number[]])) as Record<keyof DiarizationStages, number[]>;
  const named: NamedRecording[] = [];
  let references = new Map<string, VoiceProfile>();
  let audioSeconds = 0;
  try {
    for (const voices of [2, 3, 4] as const) {
      for (const conversationSeed of seeds) {
        const c = await conversation({ voices, turns: 16, seed: conversationSeed });
        const pcm = await decodeAudio(c.path, { maxSeconds: 600, timeoutMs: 120_000 });
        audioSeconds += c.seconds;
        const regions = (await engine.detectSpeech(pcm)).segments;
        const asr: number[] = [];
        const diarize: number[] = [];
        let found = 0;
        let score = 0;
        let last = null as Awaited<ReturnType<typeof engine.diarize>> | null;
        for (let r = 0; r < rounds; r++) {
          const t0 = performance.now();
          await transcribePcm(engine, pcm, { language: 'en', decoding });
          asr.push(performance.now() - t0);
          const t1 = performance.now();
          const result = await engine.diarize(pcm, regions);
          diarize.push(performance.now() - t1);
          for (const stage of DIARIZATION_STAGES) perMinute[stage].push(result.timings.stages[stage] / (c.seconds / 60));
          found = result.voices;
          last = result;
          score = diarizationErrorRate(
            c.turns,
            result.turns.map((x) => ({ speaker: String(x.speaker), start: x.start, end: x.end })),
          ).der;
        }
        der[voices].push(score);
        named.push({ turns: c.turns, voices: CONVERSATION_VOICES, diarization: last! });
        const ratio = median(diarize) / median(asr);
        ratios.push(ratio);
        rows.push([voices, conversationSeed, round(c.seconds, 1), found, round(score), round(median(asr), 0), round(median(diarize), 1), round(ratio, 4)]);
      }
    }
    for (const [i, pair] of pairs.entries()) {
      const c = await exchange({ voices: pair, turns: 4, seed: i + 1 });
      const pcm = await decodeAudio(c.path, { maxSeconds: 60, timeoutMs: 60_000 });
      named.push({ turns: c.turns, voices: { A: pair[0], B: pair[1] }, diarization: await engine.diarize(pcm, (await engine.detectSpeech(pcm)).segments) });
    }
    references = await referenceProfiles(engine, [...Object.values(CONVERSATION_VOICES), ...pairs.flat()], clipSeconds, channel);
  } finally {
    await engine.close();
  }
  const naming = scoreNaming(named, references);
  printTable(['voices', 'seed', 'seconds', 'found', 'DER', 'asr ms', 'diarize ms', 'overhead'], rows);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const overhead = median(ratios);
  console.log(
    `\n${arch} model (seed ${seed}), ${threads} threads, greedy, no fallback, max tokens ${maxTokens || 'none'}; ${round(audioSeconds, 0)} s of conversation`,
  );
  console.log(`mean DER: 2 voices ${round(mean(der[2]))}, 3 voices ${round(mean(der[3]))}, 4 voices ${round(mean(der[4]))}`);
  console.log(`median overhead (diarization / transcription): ${round(overhead, 4)}  (bar <= 0.10)`);
  const stageMs = Object.fromEntries(DIARIZATION_STAGES.map((stage) => [stage, median(perMinute[stage])])) as Record<keyof DiarizationStages, number>;
  const stagesTotal = DIARIZATION_STAGES.reduce((sum, stage) => sum + stageMs[stage], 0);
  printTable(
    ['stage', 'ms per audio minute (median)', 'share'],
    DIARIZATION_STAGES.map((stage) => [stage, round(stageMs[stage], 2), round(stageMs[stage] / Math.max(stagesTotal, 1e-9), 3)]),
  );
  if (args.includes('--sweep')) {
    const sweep = [0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 2.0].map((d) => scoreNaming(named, references, d));
    printTable(
      ['max distance', 'named correctly', 'false attribution'],
      sweep.map((x) => [x.maxDistance, round(x.namedCorrectly), round(x.falseAttribution, 4)]),
    );
  }
  console.log(
    `known speakers (${naming.scenarios} enrolments over ${named.length} recordings, ${naming.turns} turns, ${clipSeconds} s clips): ` +
      `named correctly ${round(naming.namedCorrectly)}, false attribution ${round(naming.falseAttribution, 4)}  (bar <= 0.01)`,
  );
  const short = await measureShortExchanges(shortSeeds, Math.ceil(shortSeeds / 2), Math.min(6, Math.ceil(shortSeeds / 2)));
  console.log('');
  printTable(SHORT_EXCHANGE_HEADERS, short.rows);
  console.log(`short exchanges, two voices split in two: ${short.figures.split_2} (bar >= 0.95); one voice kept as one: ${short.figures.kept_1}`);
  const dev = await measureDevRecordings(DEV_RECORDINGS_DIR);
  console.log('');
  if (dev.rows.length > 0) printTable(DEV_RECORDING_HEADERS, dev.rows);
  else console.log(`no real recordings with RTTM references in ${DEV_RECORDINGS_DIR}`);
  printResult('diarization', {
    der_2: round(mean(der[2])),
    der_3: round(mean(der[3])),
    der_4: round(mean(der[4])),
    short_split: short.figures.split_2,
    dev: dev.der,
    overhead: round(overhead, 4),
    stages_ms_per_minute: Object.fromEntries(DIARIZATION_STAGES.map((stage) => [stage, round(stageMs[stage], 2)])),
    named_correctly: round(naming.namedCorrectly),
    false_attribution: round(naming.falseAttribution, 4),
    reference_seconds: clipSeconds,
    reference_channel: channel,
    files: rows.length,
    audio_seconds: round(audioSeconds, 1),
    arch,
    seed,
    threads,
    rounds,
  });
}
