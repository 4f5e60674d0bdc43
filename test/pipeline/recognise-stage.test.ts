// The recognise stage (src/pipeline/recognise-stage.ts) on recorded engine outputs: segments as the
// engine returns them on the packed audio, carried back to the recording's time, and the
// hallucination guard's rule. (The engine itself is tested against whisper-cli in test/engine.)
import t from 'tap';

import type { TranscribeOptions } from '../../src/engine/engine.js';
import type { Transcript, TranscriptSegment } from '../../src/engine/transcript.js';
import { patternPrograms } from '../../src/pipeline/patterns.js';
import { isLikelyHallucination, NO_SPEECH_DROP_THRESHOLD, recogniseRuns } from '../../src/pipeline/recognise-stage.js';
import { SEPARATOR_SECONDS } from '../../src/pipeline/speech-regions.js';

const RATE = 16_000;

function segment(start: number, end: number, text: string, noSpeechProb = 0.01): TranscriptSegment {
  return {
    start,
    end,
    text,
    noSpeechProb,
    speakerTurnNext: false,
    tokens: [{ id: 1, text, bytes: new Uint8Array(), p: 0.9, logprob: -0.1, start, end, dtw: null, special: false }],
  };
}

function recordedTranscribe(segments: TranscriptSegment[]) {
  const calls: Array<{ seconds: number; options: TranscribeOptions }> = [];
  const transcribe = async (pcm: Float32Array, options: TranscribeOptions): Promise<Transcript> => {
    calls.push({ seconds: pcm.length / RATE, options });
    return {
      text: segments.map((s) => s.text).join(''),
      language: String(options.language),
      languageProbability: null,
      durationSeconds: pcm.length / RATE,
      segments,
      timings: { totalMs: 0, setupMs: 0, detectMs: 0, melMs: 0, encodeMs: 0, decodeMs: 0, encoderRuns: 1, decoderSteps: 0, checkMs: 0, heldMs: 0 },
    };
  };
  return { transcribe, calls };
}

t.test('segment and token times come back on the recording timeline', async (t) => {
  const pcm = new Float32Array(120 * RATE);
  // Speech at 30-35 s and 90-92 s (after long silences): packed, region 2 starts at 5 + separator.
  const regions = [
    { start: 30, end: 35 },
    { start: 90, end: 92 },
  ];
  const second = 5 + SEPARATOR_SECONDS;
  const { transcribe, calls } = recordedTranscribe([segment(0.4, 4.8, ' The patient reports chest pain.'), segment(second + 0.2, second + 1.9, ' Admit.')]);
  const out = await recogniseRuns({
    pcm,
    sampleRate: RATE,
    runs: [{ language: 'en', regions }],
    optionsFor: (language) => ({ language }),
    transcribe,
  });
  t.equal(calls.length, 1, 'one engine call for the run');
  t.equal(calls[0].seconds, 7 + SEPARATOR_SECONDS, 'only speech was decoded');
  t.same(
    out.segments.map((s) => [s.start, s.end, s.language]),
    [
      [30.4, 34.8, 'en'],
      [90.2, 91.9, 'en'],
    ],
  );
  t.equal(out.segments[1].tokens[0].start, 90.2);
  t.equal(out.text, 'The patient reports chest pain. Admit.');
});

t.test('runs are decoded in their languages and concatenated in time order', async (t) => {
  const pcm = new Float32Array(60 * RATE);
  const { transcribe, calls } = recordedTranscribe([segment(0, 2, ' Hola.')]);
  const out = await recogniseRuns({
    pcm,
    sampleRate: RATE,
    runs: [
      { language: 'en', regions: [{ start: 1, end: 3 }] },
      { language: 'es', regions: [{ start: 10, end: 12 }] },
    ],
    optionsFor: (language) => ({ language }),
    transcribe,
  });
  t.same(
    calls.map((c) => c.options.language),
    ['en', 'es'],
  );
  t.same(
    out.segments.map((s) => [s.start, s.language]),
    [
      [1, 'en'],
      [10, 'es'],
    ],
  );
});

t.test('the hallucination guard drops only what whisper and the VAD both call silence', async (t) => {
  const speech = [{ start: 10, end: 20 }];
  t.notOk(isLikelyHallucination(segment(11, 15, 'x', 0.95), speech), 'high no-speech probability inside speech: kept');
  t.notOk(isLikelyHallucination(segment(25, 28, 'x', 0.2), speech), 'outside speech but whisper is sure it is speech: kept');
  t.ok(isLikelyHallucination(segment(25, 28, 'x', NO_SPEECH_DROP_THRESHOLD), speech), 'both: dropped');
  t.ok(isLikelyHallucination(segment(19, 24, 'x', 0.9), speech), 'one fifth in speech: dropped');
  t.ok(isLikelyHallucination(segment(20, 20, 'x', 0.9), speech), 'zero length at a region edge: dropped');

  // In the stage: a segment decoded over the separator maps to a region edge and is dropped.
  const pcm = new Float32Array(30 * RATE);
  const { transcribe } = recordedTranscribe([segment(0, 1.9, ' Yes.'), segment(2.0, 2.1, ' Thank you.', 0.9)]);
  const out = await recogniseRuns({
    pcm,
    sampleRate: RATE,
    runs: [
      {
        language: 'en',
        regions: [
          { start: 1, end: 3 },
          { start: 10, end: 12 },
        ],
      },
    ],
    optionsFor: (language) => ({ language }),
    transcribe,
  });
  t.equal(out.droppedSegments, 1);
  t.equal(out.text, 'Yes.');
});

t.test('text deltas: segments told as the engine reports them, through the same guard; a later window once the earlier ones stand', async (t) => {
  const pcm = new Float32Array(40 * RATE);
  const decoded = [segment(0, 1.9, ' Yes.'), segment(2.0, 2.1, ' Thank you.', 0.9), segment(2.2, 2.9, ' Admit.')];
  const told: string[] = [];
  const reportsMade: number[] = [];
  // The engine reports each segment as it finishes, then returns them all.
  const transcribe = async (
    pcm: Float32Array,
    options: TranscribeOptions,
    _signal?: AbortSignal,
    onSegments?: (s: TranscriptSegment[]) => void,
  ): Promise<Transcript> => {
    for (const s of decoded) {
      onSegments?.([s]);
      reportsMade.push(told.length);
    }
    return await recordedTranscribe(decoded).transcribe(pcm, options);
  };
  const runs = [
    {
      language: 'en' as const,
      regions: [
        { start: 1, end: 3 },
        { start: 10, end: 12 },
      ],
    },
    { language: 'es' as const, regions: [{ start: 20, end: 23 }] },
  ];
  const out = await recogniseRuns({ pcm, sampleRate: RATE, runs, optionsFor: (language) => ({ language }), transcribe, onTextDelta: (d) => told.push(d) });
  t.equal(out.text, 'Yes. Admit. Yes. Thank you. Admit.', 'the guard dropped the separator segment of the first run only');
  // Both windows decode at once: the second's segments wait until the first window is finished.
  t.same(
    told,
    ['Yes.', ' Admit.', ' Yes. Thank you. Admit.'],
    "one delta per kept segment of the first window, none for the dropped one, then the second window's",
  );
  t.equal(told.join(''), out.text, 'the deltas add up to the text');
  t.same(reportsMade, [1, 1, 2, 2, 2, 2], "the first window's segments told as soon as the engine reported them");

  // With patterns, a window's text is told only after they are applied.
  const formatted: string[] = [];
  const withPatterns = await recogniseRuns({
    pcm,
    sampleRate: RATE,
    runs: [runs[0]],
    optionsFor: (language) => ({ language }),
    transcribe,
    patterns: patternPrograms(['Admit\\.']),
    onTextDelta: (d) => formatted.push(d),
  });
  t.same(formatted, [withPatterns.text], 'one delta for the window, its final text');
});
