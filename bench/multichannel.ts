// bench multichannel: `multichannel` (issue 46.4) on generated stereo consultations
// (test/helpers/stereo-consultation.ts): two espeak-ng voices, one per channel, each bleeding into the
// other's channel at 10-20 % of its level, taking turns with pauses and overlaps; exact reference turns.
// Per file: DER by channel (the merged answer's speaker_segments, labelled by channel, against the
// reference turns; 0.25 s collar) and the time to transcribe the two channels apart and merge them.
// Yardstick, in the same run on the same audio: transcribing the mono mix (the recording without
// multichannel). Decoding is not timed (one ffmpeg per channel against one for the mix).
//   npm run bench -- multichannel [--seeds 4] [--turns 8] [--model PATH]
// Bar (issue 46.4): DER by channel <= 0.02.
import { decodeAudio } from '../src/audio/index.js';
import { SAMPLE_RATE } from '../src/domain/audio-format.js';
import { Engine } from '../src/engine/engine.js';
import { vadModelPath } from '../src/models/vad-model-path.js';
import { transcribeChannels } from '../src/pipeline/channel-tracks.js';
import { pipelineStages } from '../src/pipeline/pipeline-engine.js';
import { type PipelineRequest, runTranscription, type RunTranscriptionDeps } from '../src/pipeline/run-transcription.js';
import { diarizationErrorRate } from '../test/helpers/diarization-error-rate.js';
import { stereoConsultation } from '../test/helpers/stereo-consultation.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

const DER_BAR = 0.02;

export async function run(args: string[]): Promise<void> {
  const seeds = Number(flag(args, 'seeds', '4'));
  const turns = Number(flag(args, 'turns', '8'));
  const model = flag(args, 'model', '') || (await testModelPath('micro'));
  const engine = await Engine.open({ model, workers: 1, vadModel: vadModelPath(), vadWorkers: 1 });
  const deps: RunTranscriptionDeps = {
    ...pipelineStages(engine),
    decoding: { beamSize: 1, maxTokens: 0, temperatureFallback: false },
    sampleRate: SAMPLE_RATE,
    dictionaryFor: () => Promise.resolve([]),
  };
  const request: PipelineRequest = { language: { mode: 'dominant' }, dictionary: false, vocabulary: [], diarize: false };
  const rows: Array<Array<string | number>> = [];
  const results: Array<{ der: number; multiMs: number; monoMs: number }> = [];
  try {
    for (let seed = 1; seed <= seeds; seed++) {
      // 10, 13, 17, 20 % of bleed, round and round.
      const bleed = [0.1, 0.13, 0.17, 0.2][(seed - 1) % 4]!;
      const talk = await stereoConsultation({ turns, bleed, seed });
      const decode = (channel?: number) => decodeAudio(talk.path, { maxSeconds: 600, timeoutMs: 120_000, ...(channel === undefined ? {} : { channel }) });
      const channels = [await decode(0), await decode(1)];
      const mix = await decode();
      const t0 = performance.now();
      const merged = await transcribeChannels(channels, request, deps);
      const multiMs = performance.now() - t0;
      const t1 = performance.now();
      await runTranscription(mix, request, deps);
      const monoMs = performance.now() - t1;
      const score = diarizationErrorRate(talk.turns, merged.speakers.speakerSegments);
      // By channel: the labels are the reference's own, so a swapped channel counts as confusion.
      const swapped = Object.entries(score.mapping).some(([hypothesis, reference]) => hypothesis !== reference);
      const der = swapped ? 1 : score.der;
      results.push({ der, multiMs, monoMs });
      rows.push([
        seed,
        round(bleed, 2),
        talk.turns.length,
        round(talk.seconds, 1),
        merged.speakers.speakerSegments.length,
        round(score.missed, 2),
        round(score.falseAlarm, 2),
        round(score.confusion, 2),
        round(der),
        round(multiMs, 0),
        round(monoMs, 0),
        round(multiMs / monoMs, 2),
      ]);
    }
  } finally {
    await engine.close();
  }
  printTable(
    ['seed', 'bleed', 'turns', 'seconds', 'channel turns', 'missed s', 'false alarm s', 'confused s', 'DER', 'multichannel ms', 'mono ms', 'ratio'],
    rows,
  );
  const meanDer = results.reduce((sum, r) => sum + r.der, 0) / Math.max(1, results.length);
  const worstDer = Math.max(...results.map((r) => r.der));
  const ratio = median(results.map((r) => r.multiMs / r.monoMs));
  console.log(
    `\nDER by channel: mean ${round(meanDer)}, worst ${round(worstDer)} (bar <= ${DER_BAR}); time against the mono mix: ${round(ratio, 2)}x (median)`,
  );
  printResult('multichannel', {
    der_mean: round(meanDer),
    der_worst: round(worstDer),
    der_bar: DER_BAR,
    multichannel_ms: round(median(results.map((r) => r.multiMs)), 0),
    mono_ms: round(median(results.map((r) => r.monoMs)), 0),
    time_ratio: round(ratio, 2),
    seeds,
    model: model.split('/').at(-1),
  });
}
