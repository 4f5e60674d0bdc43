// Parallel decoding windows (docs/DESIGN.md decision 10): a recording's windows run at once on every
// free worker, and the transcript does not depend on how many ran. On the real engine (a generated
// tiny model: its words are noise, but the same noise for the same audio and options) with espeak-ng
// speech long enough for several windows, and on recorded engine outputs for the order in which a
// streamed answer's deltas are told when windows finish out of order.
import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { Engine } from '../../src/engine/engine.js';
import type { Transcript, TranscriptSegment } from '../../src/engine/transcript.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { pipelineStages } from '../../src/pipeline/pipeline-engine.js';
import { recogniseRuns } from '../../src/pipeline/recognise-stage.js';
import { runTranscription, type TranscriptionOutcome } from '../../src/pipeline/run-transcription.js';
import { interleavedSilenceWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';

const RATE = 16_000;
const decoding = { beamSize: 1, maxTokens: 24, temperatureFallback: false };

/** The pipeline over `pcm` on `engine`, with the deltas a streamed answer would carry and the most calls seen running at once. */
async function transcribe(engine: Engine, pcm: Float32Array, vocabulary: string[]): Promise<{ outcome: TranscriptionOutcome; deltas: string[]; peak: number }> {
  const deltas: string[] = [];
  let peak = 0;
  const watch = setInterval(() => (peak = Math.max(peak, engine.stats.running)), 2);
  try {
    const outcome = await runTranscription(
      pcm,
      {
        language: { mode: 'explicit', language: { tag: 'en', family: 'en' }, source: 'requested' },
        dictionary: false,
        vocabulary,
        diarize: false,
        wordTimestamps: true,
      },
      { ...pipelineStages(engine), decoding, sampleRate: RATE, dictionaryFor: async () => [] },
      { onTextDelta: (delta) => deltas.push(delta) },
    );
    return { outcome, deltas, peak };
  } finally {
    clearInterval(watch);
  }
}

t.test('the transcript is byte-identical whether the windows ran one at a time or all at once', async (t) => {
  const model = await testModelPath('tiny', 1);
  // Nine stretches of 8 s of speech, 1.5 s apart: about 72 s of speech, three windows or more.
  const pcm = await decodeAudio(await interleavedSilenceWav(9, 8, 1.5), { maxSeconds: 120, timeoutMs: 60_000 });
  const one = await Engine.open({ model, workers: 1, threadsPerWorker: 1, vadModel: vadModelPath() });
  const three = await Engine.open({ model, workers: 3, threadsPerWorker: 1, vadModel: vadModelPath() });
  t.teardown(() => Promise.all([one.close(), three.close()]));
  for (const vocabulary of [[], ['metoprolol', 'tachycardia']]) {
    const label = vocabulary.length ? 'with vocabulary (prompted windows and their check)' : 'without vocabulary';
    const callsBefore = three.stats.calls.transcribe;
    const sequential = await transcribe(one, pcm, vocabulary);
    const parallel = await transcribe(three, pcm, vocabulary);
    t.ok(three.stats.calls.transcribe - callsBefore >= 3, `${label}: several windows`);
    t.equal(sequential.peak, 1, `${label}: one worker ran one window at a time`);
    t.ok(parallel.peak >= 2, `${label}: windows ran at once (${parallel.peak} at the peak)`);
    t.ok(parallel.outcome.text.length > 0, `${label}: text`);
    t.equal(parallel.outcome.text, sequential.outcome.text, `${label}: same text`);
    t.equal(JSON.stringify(parallel.outcome.segments), JSON.stringify(sequential.outcome.segments), `${label}: same segments, tokens and times`);
    t.same(parallel.outcome.vocabularyTally, sequential.outcome.vocabularyTally, `${label}: same vocabulary tally`);
    t.equal(parallel.deltas.join(''), parallel.outcome.text, `${label}: the deltas add up to the text`);
    t.equal(sequential.deltas.join(''), sequential.outcome.text);
    const times = parallel.outcome.segments.map((s) => s.start);
    t.same(
      times,
      [...times].sort((a, b) => a - b),
      `${label}: segments in time order`,
    );
  }
});

function segment(start: number, end: number, text: string): TranscriptSegment {
  return {
    start,
    end,
    text,
    noSpeechProb: 0.01,
    speakerTurnNext: false,
    tokens: [{ id: 1, text, bytes: new Uint8Array(), p: 0.9, logprob: -0.1, start, end, dtw: null, special: false }],
  };
}

t.test("streamed deltas arrive in order when later windows finish first, each window's live text once it is the earliest unfinished", async (t) => {
  // Three windows of 20 s of speech each; the engine finishes them last to first.
  const regions = [0, 1, 2].map((k) => ({ start: k * 25, end: k * 25 + 20 }));
  const pcm = new Float32Array(75 * RATE).fill(0.1);
  const releases: Array<() => void> = [];
  const transcribe = (window: Float32Array, _options: unknown, _signal?: AbortSignal, onSegments?: (s: TranscriptSegment[]) => void) => {
    const k = releases.length;
    return new Promise<Transcript>((resolve) => {
      releases.push(() => {
        const segments = [segment(0, 9, ` first of ${k}.`), segment(10, 19, ` second of ${k}.`)];
        onSegments?.([segments[0]]);
        onSegments?.([segments[1]]);
        resolve({
          text: segments.map((s) => s.text).join(''),
          language: 'en',
          languageProbability: null,
          durationSeconds: window.length / RATE,
          segments,
          timings: { totalMs: 0, setupMs: 0, detectMs: 0, melMs: 0, encodeMs: 0, decodeMs: 0, encoderRuns: 1, decoderSteps: 0, checkMs: 0, heldMs: 0 },
        });
      });
    });
  };
  const told: string[] = [];
  const recognising = recogniseRuns({
    pcm,
    sampleRate: RATE,
    runs: [{ language: 'en', regions }],
    optionsFor: () => ({}),
    transcribe,
    onTextDelta: (delta) => told.push(delta),
  });
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(releases.length, 3, 'all three windows were asked for at once');
  releases[2]();
  releases[1]();
  await new Promise((resolve) => setImmediate(resolve));
  t.same(told, [], 'nothing told while the first window runs');
  releases[0]();
  const recognised = await recognising;
  t.equal(told.join(''), recognised.text);
  t.equal(recognised.text, 'first of 0. second of 0. first of 1. second of 1. first of 2. second of 2.');
  t.same(told[0], 'first of 0.', "the first window's segments as it decoded them");
  t.same(
    recognised.segments.map((s) => s.start),
    [0, 10, 25, 35, 50, 60],
  );
});

t.test('a window that fails stops the others and the request fails with its error', async (t) => {
  const regions = [0, 1, 2].map((k) => ({ start: k * 25, end: k * 25 + 20 }));
  const pcm = new Float32Array(75 * RATE);
  const stopped: number[] = [];
  let calls = 0;
  const transcribe = (_pcm: Float32Array, _options: unknown, signal?: AbortSignal) => {
    const k = calls++;
    if (k === 1) return Promise.reject(new Error('window 1 failed'));
    return new Promise<Transcript>((_resolve, reject) => {
      signal!.addEventListener('abort', () => {
        stopped.push(k);
        reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
      });
    });
  };
  await t.rejects(recogniseRuns({ pcm, sampleRate: RATE, runs: [{ language: 'en', regions }], optionsFor: () => ({}), transcribe }), {
    message: 'window 1 failed',
  });
  t.same(stopped.sort(), [0, 2], 'the other windows were told to stop, and the request waited for them');
});
