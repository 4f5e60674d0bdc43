// multichannel's merge (pipeline/channel-merge.ts) on given decodes: two channels' segments, words and
// samples written here, so what is asserted is the merge's own rule: segments in time order tagged with
// their channel, speakers by channel (or voice within it), and a word heard on both kept once, where louder.
import t from 'tap';

import type { TranscriptToken } from '../../src/engine/transcript.js';
import { channelLabel, mergeChannels } from '../../src/pipeline/channel-merge.js';
import { MAX_CHANNELS, requireMultichannelAudio } from '../../src/pipeline/channel-tracks.js';
import { UnprocessableRequest } from '../../src/pipeline/pipeline-errors.js';
import type { TranscriptionOutcome } from '../../src/pipeline/run-transcription.js';
import { unattributed } from '../../src/pipeline/speaker-attachment.js';

const RATE = 16_000;
const SECONDS = 6;

/** Words as [text, start, end]: one segment of them, each word one timed token. */
function segment(words: Array<[string, number, number]>) {
  const tokens: TranscriptToken[] = words.map(([text, start, end], id) => ({
    id,
    text: ` ${text}`,
    bytes: new TextEncoder().encode(` ${text}`),
    p: 0.9,
    logprob: -0.1,
    start,
    end,
    dtw: null,
    special: false,
  }));
  return {
    start: words[0]![1],
    end: words.at(-1)![2],
    text: tokens.map((tk) => tk.text).join(''),
    noSpeechProb: 0,
    speakerTurnNext: false,
    tokens,
    language: 'en' as const,
  };
}

function outcome(segments: ReturnType<typeof segment>[]): TranscriptionOutcome {
  return {
    text: segments.map((s) => s.text.trim()).join(' '),
    segments,
    durationSeconds: SECONDS,
    language: 'en',
    families: ['en'],
    languageSource: 'requested',
    detection: null,
    languageEvidence: null,
    vocabulary: null,
    vocabularyTally: null,
    patterns: null,
    wordTiming: true,
    speakers: unattributed(segments, true),
    speech: { regions: segments.map((s) => ({ start: s.start, end: s.end })), seconds: 0 },
    asrMs: 5,
    diarizationMs: 0,
    temperature: 0,
    task: 'transcribe',
  };
}

/** Samples of `level` over each span, silence elsewhere. */
function pcm(spans: Array<[number, number, number]>): Float32Array {
  const samples = new Float32Array(SECONDS * RATE);
  for (const [start, end, level] of spans) for (let i = Math.floor(start * RATE); i < end * RATE; i++) samples[i] = i % 2 ? level : -level;
  return samples;
}

const options = { sampleRate: RATE, diarize: false, words: true };

t.test('segments in time order, each with its channel; the channel is the speaker', async (t) => {
  const merged = mergeChannels(
    [
      {
        pcm: pcm([
          [0, 1, 0.5],
          [3, 4, 0.5],
        ]),
        outcome: outcome([
          segment([
            ['hello', 0, 0.5],
            ['there', 0.5, 1],
          ]),
          segment([['fine', 3, 4]]),
        ]),
      },
      {
        pcm: pcm([[1.5, 2.5, 0.5]]),
        outcome: outcome([
          segment([
            ['how', 1.5, 2],
            ['now', 2, 2.5],
          ]),
        ]),
      },
    ],
    options,
  );
  t.same(
    merged.speakers.segments.map((s) => [s.channel, s.speaker, s.text.trim()]),
    [
      [0, 'channel_0', 'hello there'],
      [1, 'channel_1', 'how now'],
      [0, 'channel_0', 'fine'],
    ],
  );
  t.equal(merged.text, 'hello there how now fine');
  t.same(merged.speakers.speakers, [{ speaker: 'channel_0' }, { speaker: 'channel_1' }]);
  t.same(
    merged.speakers.speakerSegments.map((s) => [s.speaker, s.start, s.end]),
    [
      ['channel_0', 0, 1],
      ['channel_1', 1.5, 2.5],
      ['channel_0', 3, 4],
    ],
  );
  t.same(
    merged.speakers.words!.map((w) => [w.word, w.channel, w.speaker]),
    [
      ['hello', 0, 'channel_0'],
      ['there', 0, 'channel_0'],
      ['how', 1, 'channel_1'],
      ['now', 1, 'channel_1'],
      ['fine', 0, 'channel_0'],
    ],
  );
  t.equal(merged.speakers.timing.detected_speaker_count, 2);
  t.equal(merged.asrMs, 10, 'recognition time adds up');
});

t.test('a word heard on both channels at once is kept once, on the louder', async (t) => {
  // Channel 0 says "aspirin daily"; channel 1 hears "aspirin" at 15 % and says "yes" itself.
  const merged = mergeChannels(
    [
      {
        pcm: pcm([
          [0, 1, 0.6],
          [2, 2.5, 0.09],
        ]),
        outcome: outcome([
          segment([
            ['aspirin', 0, 0.5],
            ['daily', 0.5, 1],
          ]),
        ]),
      },
      {
        pcm: pcm([
          [0, 0.5, 0.09],
          [2, 2.5, 0.6],
        ]),
        outcome: outcome([segment([['Aspirin.', 0.05, 0.45]]), segment([['yes', 2, 2.5]])]),
      },
    ],
    options,
  );
  t.same(
    merged.speakers.words!.map((w) => [w.word, w.channel]),
    [
      ['aspirin', 0],
      ['daily', 0],
      ['yes', 1],
    ],
  );
  t.equal(merged.speakers.segments.length, 2, "the bleed's segment, emptied, is gone");
  t.equal(merged.text, 'aspirin daily yes');
});

t.test('a quiet copy decoded as other words is known by its level', async (t) => {
  const merged = mergeChannels(
    [
      {
        pcm: pcm([[0, 1, 0.6]]),
        outcome: outcome([
          segment([
            ['blood', 0, 0.5],
            ['pressure', 0.5, 1],
          ]),
        ]),
      },
      {
        pcm: pcm([[0, 1, 0.1]]),
        outcome: outcome([
          segment([
            ['flood', 0, 0.5],
            ['treasure', 0.5, 1],
          ]),
        ]),
      },
    ],
    options,
  );
  t.same(
    merged.speakers.segments.map((s) => s.channel),
    [0],
  );
  t.same(
    merged.speakers.speakerSegments.map((s) => [s.speaker, s.start, s.end]),
    [['channel_0', 0, 1]],
    "the bleed is no turn of the quiet channel's",
  );
});

t.test('talking over each other: both kept, each on its own channel', async (t) => {
  const merged = mergeChannels(
    [
      { pcm: pcm([[0, 1, 0.5]]), outcome: outcome([segment([['stop', 0, 1]])]) },
      { pcm: pcm([[0, 1, 0.4]]), outcome: outcome([segment([['wait', 0, 1]])]) },
    ],
    options,
  );
  t.same(
    merged.speakers.segments.map((s) => [s.channel, s.text.trim()]),
    [
      [0, 'stop'],
      [1, 'wait'],
    ],
  );
});

t.test('with diarize, voices are labelled within their channel; a voice that is only bleed is none', async (t) => {
  const diarized = (o: TranscriptionOutcome, turns: Array<[string, number, number]>): TranscriptionOutcome => ({
    ...o,
    speakers: {
      ...o.speakers,
      segments: o.speakers.segments.map((s) => ({ ...s, speaker: 'A' })),
      speakers: [...new Set(turns.map(([speaker]) => speaker))].map((speaker) => ({ speaker })),
      speakerSegments: turns.map(([speaker, start, end]) => ({ speaker, start, end })),
      timing: { ...o.speakers.timing, detected_speaker_count: new Set(turns.map(([speaker]) => speaker)).size, requested_max_speakers: 4 },
    },
  });
  // Channel 1's diarizer hears channel 0's voice bleeding in over 0-1 s as a voice of its own (B).
  const merged = mergeChannels(
    [
      { pcm: pcm([[0, 1, 0.5]]), outcome: diarized(outcome([segment([['one', 0, 1]])]), [['A', 0, 1]]) },
      {
        pcm: pcm([
          [0, 1, 0.07],
          [2, 3, 0.5],
        ]),
        outcome: diarized(outcome([segment([['two', 2, 3]])]), [
          ['B', 0, 1],
          ['A', 2, 3],
        ]),
      },
    ],
    { ...options, diarize: true },
  );
  t.same(
    merged.speakers.segments.map((s) => s.speaker),
    ['channel_0_A', 'channel_1_A'],
  );
  t.same(merged.speakers.speakers, [{ speaker: 'channel_0_A' }, { speaker: 'channel_1_A' }], 'the bleed voice is gone');
  t.same(
    merged.speakers.speakerSegments.map((s) => [s.speaker, s.start, s.end]),
    [
      ['channel_0_A', 0, 1],
      ['channel_1_A', 2, 3],
    ],
  );
  t.equal(merged.speakers.timing.detected_speaker_count, 2);
});

t.test('words not asked: none in the merged answer', async (t) => {
  const merged = mergeChannels(
    [
      { pcm: pcm([[0, 1, 0.5]]), outcome: outcome([segment([['one', 0, 1]])]) },
      { pcm: pcm([]), outcome: outcome([]) },
    ],
    { ...options, words: false },
  );
  t.equal(merged.wordTiming, false);
  t.equal(merged.speakers.words, null);
  t.same(merged.speakers.speakers, [{ speaker: channelLabel(0) }]);
});

t.test('mono, or more channels than taken, is refused saying why', async (t) => {
  t.throws(() => requireMultichannelAudio(1), UnprocessableRequest);
  t.throws(() => requireMultichannelAudio(1), /mono/);
  t.throws(() => requireMultichannelAudio(MAX_CHANNELS + 1), /has 3/);
  t.doesNotThrow(() => requireMultichannelAudio(2));
});
