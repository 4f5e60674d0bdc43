// A long recording's totals, chunk by chunk (src/pipeline/chunk-accumulation.ts): two chunks of a
// prompted, patterned, diarized job at 0 s and 300 s add up to what the job runner added up itself
// before the merge moved into the pipeline, to the byte of the JSON a job row stores between chunks
// (a job written by the earlier version resumes).
import t from 'tap';

import { accumulateChunk, type ChunkOutcome, type RecordingTotals } from '../../src/pipeline/chunk-accumulation.js';
import { addPatternTallies, emptyPatternTally, shiftPatternTally } from '../../src/pipeline/pattern-stage.js';
import { addTallies, EMPTY_TALLY, shiftTally } from '../../src/pipeline/prompted-recognition.js';

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The job runner's own merge before chunk-accumulation.ts (src/jobs/job-runner.ts, processChunk). */
function runnerMerge<T extends RecordingTotals>(carry: T, outcome: ChunkOutcome, start: number, decorates: boolean): T {
  return {
    ...carry,
    wordTiming: outcome.wordTiming,
    asrMs: carry.asrMs + outcome.asrMs,
    ...(outcome.vocabularyTally ? { vocabulary: addTallies(carry.vocabulary ?? EMPTY_TALLY, shiftTally(outcome.vocabularyTally, start)) } : {}),
    ...(outcome.patterns
      ? { patterns: addPatternTallies(carry.patterns ?? emptyPatternTally(outcome.patterns.results.length), shiftPatternTally(outcome.patterns, start)) }
      : {}),
    ...(decorates
      ? { speech: [...(carry.speech ?? []), ...outcome.speech.regions.map((r): [number, number] => [round3(start + r.start), round3(start + r.end)])] }
      : {}),
  };
}

/** A job's carry-over before its first chunk (src/jobs/job-chunk.ts firstLook); `language` is what the first chunk decided. */
const firstCarry = {
  container: 'wav',
  durationSeconds: 412.85,
  language: { choice: null, source: null, detection: null, language: 'und' },
  speakerTiming: null,
  wordTiming: false,
  asrMs: 0,
};
const language = { choice: { mode: 'explicit', tag: 'en' }, source: 'detected', detection: null, language: 'en' };

const speechOf = (regions: Array<[number, number]>) => {
  const list = regions.map(([start, end]) => ({ start, end }));
  return { regions: list, seconds: list.reduce((s, r) => s + r.end - r.start, 0) };
};

const chunkAt0: ChunkOutcome = {
  wordTiming: true,
  asrMs: 41_250,
  vocabularyTally: {
    promptedChunks: 3,
    fallbackChunks: 1,
    promptedTerms: ['metoprolol', 'lisinopril'],
    suspectTerms: [],
    fallbackReasons: { number: 1 },
    corrections: [{ term: 'metoprolol', replaced: 'metoprolal', start: 41.52, end: 42.18 }],
  },
  patterns: {
    results: [
      { count: 1, spans: [{ start: 88.4, end: 90.12, text: 'BP 120/80', source: 'b p one twenty over eighty' }] },
      { count: 0, spans: [] },
    ],
    exhausted: 0,
  },
  speech: speechOf([
    [0.512, 61.3004],
    [63.1, 298.75],
  ]),
};

const chunkAt300: ChunkOutcome = {
  // The second chunk heard a language without word timing.
  wordTiming: false,
  asrMs: 17_800,
  vocabularyTally: {
    promptedChunks: 2,
    fallbackChunks: 2,
    promptedTerms: ['lisinopril', 'atorvastatin'],
    suspectTerms: ['atorvastatin'],
    fallbackReasons: { number: 1, negation: 1 },
    corrections: [{ term: 'lisinopril', replaced: 'lisinopryl', start: 12.25, end: 13 }],
  },
  patterns: {
    results: [
      {
        count: 2,
        spans: [
          { start: 5.5, end: 7.25, text: 'BP 135/85', source: 'bp one thirty five over eighty five' },
          { start: 140.1, end: 141.9, text: 'BP 128/82', source: 'b p one twenty eight over eighty two' },
        ],
      },
      { count: 1, spans: [{ start: 60.02, end: 61.4, text: 'SpO2 97%', source: 'sats ninety seven percent' }] },
    ],
    exhausted: 1,
  },
  speech: speechOf([
    [0.0004, 44.9996],
    [46.2, 112.85],
  ]),
};

t.test('two chunks at 0 s and 300 s add up to the recording totals, as the runner added them', async (t) => {
  const afterFirst = accumulateChunk({ ...firstCarry, language, speakerTiming: null }, chunkAt0, 0, { keepSpeech: true });
  // The row stores the carry-over as JSON between claims; the next claim reads it back.
  const stored = JSON.stringify(afterFirst);
  t.equal(
    stored,
    JSON.stringify(runnerMerge({ ...firstCarry, language, speakerTiming: null }, chunkAt0, 0, true)),
    'first chunk: the stored JSON is byte for byte the same',
  );
  const resumed = JSON.parse(stored) as typeof afterFirst;
  const totals = accumulateChunk(resumed, chunkAt300, 300, { keepSpeech: true });
  t.equal(JSON.stringify(totals), JSON.stringify(runnerMerge(resumed, chunkAt300, 300, true)), 'second chunk: the stored JSON is byte for byte the same');

  t.same(totals, {
    ...firstCarry,
    language,
    wordTiming: false,
    asrMs: 59_050,
    vocabulary: {
      promptedChunks: 5,
      fallbackChunks: 3,
      promptedTerms: ['metoprolol', 'lisinopril', 'atorvastatin'],
      suspectTerms: ['atorvastatin'],
      fallbackReasons: { number: 2, negation: 1 },
      corrections: [
        { term: 'metoprolol', replaced: 'metoprolal', start: 41.52, end: 42.18 },
        { term: 'lisinopril', replaced: 'lisinopryl', start: 312.25, end: 313 },
      ],
    },
    patterns: {
      results: [
        {
          count: 3,
          spans: [
            { start: 88.4, end: 90.12, text: 'BP 120/80', source: 'b p one twenty over eighty' },
            { start: 305.5, end: 307.25, text: 'BP 135/85', source: 'bp one thirty five over eighty five' },
            { start: 440.1, end: 441.9, text: 'BP 128/82', source: 'b p one twenty eight over eighty two' },
          ],
        },
        { count: 1, spans: [{ start: 360.02, end: 361.4, text: 'SpO2 97%', source: 'sats ninety seven percent' }] },
      ],
      exhausted: 1,
    },
    // Rounded to the millisecond on the recording's timeline.
    speech: [
      [0.512, 61.3],
      [63.1, 298.75],
      [300, 345],
      [346.2, 412.85],
    ],
  });
  t.same(
    Object.keys(totals),
    ['container', 'durationSeconds', 'language', 'speakerTiming', 'wordTiming', 'asrMs', 'vocabulary', 'patterns', 'speech'],
    'fields in the stored order',
  );
});

t.test('a chunk without a prompt, patterns or kept speech leaves those totals as they were', async (t) => {
  const before = accumulateChunk({ ...firstCarry }, chunkAt0, 0, { keepSpeech: true });
  const silent: ChunkOutcome = { wordTiming: true, asrMs: 3, vocabularyTally: null, patterns: null, speech: speechOf([]) };
  const after = accumulateChunk(before, silent, 300, { keepSpeech: false });
  t.equal(JSON.stringify(after), JSON.stringify(runnerMerge(before, silent, 300, false)));
  t.equal(after.vocabulary, before.vocabulary);
  t.equal(after.patterns, before.patterns);
  t.equal(after.speech, before.speech);
  t.same([after.asrMs, after.wordTiming], [41_253, true]);

  const plain = accumulateChunk({ ...firstCarry }, silent, 0, { keepSpeech: false });
  t.same(Object.keys(plain), ['container', 'durationSeconds', 'language', 'speakerTiming', 'wordTiming', 'asrMs'], 'no tally appears that no chunk made');
});

t.test("a multichannel recording's chunks add each channel's speech regions, on the recording's timeline", async (t) => {
  const stereo = (regions: Array<[number, number]>, channels: Array<Array<[number, number]>>) => ({
    ...speechOf(regions),
    channels: channels.map((list) => speechOf(list).regions),
  });
  const first: ChunkOutcome = { ...chunkAt0, speech: stereo([[0.5, 4]], [[[0.5, 2]], [[2.2, 4.0004]]]) };
  const second: ChunkOutcome = { ...chunkAt300, speech: stereo([[0.1, 3]], [[], [[0.1, 3]]]) };
  const afterFirst = accumulateChunk({ ...firstCarry }, first, 0, { keepSpeech: true });
  const totals = accumulateChunk(JSON.parse(JSON.stringify(afterFirst)) as typeof afterFirst, second, 5, { keepSpeech: true });
  t.same(totals.channelSpeech, [
    [[0.5, 2]],
    [
      [2.2, 4],
      [5.1, 8],
    ],
  ]);
  t.same(
    totals.speech,
    [
      [0.5, 4],
      [5.1, 8],
    ],
    'the mixed regions as before',
  );
  t.notOk('channelSpeech' in accumulateChunk({ ...firstCarry }, first, 0, { keepSpeech: false }), 'kept only when asked for');
});
