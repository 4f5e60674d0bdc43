// A multichannel job's decoration, its logic on given data (src/jobs/channel-decoration.ts): each
// channel's attachment labelled within its channel and merged in time, the turns less the other
// channel's bleed read off the levels the decoration kept window by window, a voice heard only as
// bleed dropped; and those levels, kept per frame, read as the samples' own RMS. The whole decoration,
// with the engine and ffmpeg, against the inline answer: test/api/multichannel.test.ts.
import t from 'tap';

import { LevelTrack, mergeChannelAttachments } from '../../src/jobs/channel-decoration.js';
import type { TimedSegment } from '../../src/jobs/job-transcript.js';
import { rmsOver } from '../../src/pipeline/channel-merge.js';
import type { ShapedAttachment, SpeakerTiming } from '../../src/pipeline/speaker-attachment.js';

const RATE = 16_000;

function timing(voices: number): SpeakerTiming {
  return { word_timing: true, speaker_ceiling_reached: false, requested_max_speakers: 4, detected_speaker_count: voices, speaker_ceiling_action: 'none' };
}

function segment(id: string, speaker: string, start: number, end: number, text: string): TimedSegment {
  return { id, speaker, start, end, text, confidence: 0.9 };
}

t.test('levels kept window by window read as the samples their windows held', async (t) => {
  const seconds = 4;
  const pcm = Float32Array.from({ length: seconds * RATE }, (_, i) => Math.sin(i / 7) * (i < 2 * RATE ? 0.1 : 0.5));
  const levels = new LevelTrack(seconds, RATE);
  // Two windows overlapping by 20 ms, as the decoration decodes them.
  levels.place(0, pcm.subarray(0, 2.02 * RATE));
  levels.place(2, pcm.subarray(2 * RATE));
  for (const [start, end] of [
    [0, 0.05],
    [1.5, 2.5],
    [3.2, 3.25],
    [0, 4],
  ] as const) {
    t.ok(Math.abs(levels.rmsOver(start, end) - rmsOver(pcm, start, end, RATE)) < 1e-6, `${start}-${end} s`);
  }
  t.equal(new LevelTrack(seconds, RATE).rmsOver(1, 2), 0, 'nothing decoded there: silent');
});

t.test("each channel's voices labelled within it, merged in time; a voice heard only as bleed is dropped", async (t) => {
  const channel0: ShapedAttachment<TimedSegment> = {
    segments: [segment('seg_0', 'A', 0, 2, 'good morning'), segment('seg_1', 'A', 4, 5, 'and then')],
    words: [
      { word: 'good', start: 0, end: 0.5, speaker: 'A' },
      { word: 'morning', start: 0.6, end: 2, speaker: 'A' },
      { word: 'and', start: 4, end: 4.4, speaker: 'A' },
      { word: 'then', start: 4.5, end: 5, speaker: 'A' },
    ],
    speakers: [{ speaker: 'A' }, { speaker: 'B' }],
    // B is channel 1's voice bleeding in: its turn is where channel 1 is loud.
    speakerSegments: [
      { speaker: 'A', start: 0, end: 2 },
      { speaker: 'B', start: 2.2, end: 3.8 },
      { speaker: 'A', start: 4, end: 5 },
    ],
    timing: timing(2),
  };
  const channel1: ShapedAttachment<TimedSegment> = {
    segments: [segment('seg_0', 'A', 2.2, 3.8, 'it hurts'), segment('seg_1', 'unknown', 5.5, 6, 'hm')],
    words: [
      { word: 'it', start: 2.2, end: 2.5, speaker: 'A' },
      { word: 'hurts', start: 2.6, end: 3.8, speaker: 'A' },
      { word: 'hm', start: 5.5, end: 6, review_required: true },
    ],
    speakers: [{ speaker: 'A' }],
    speakerSegments: [{ speaker: 'A', start: 2.2, end: 3.8 }],
    timing: timing(1),
  };
  // Channel 0 speaks over [0, 2] and [4, 5], channel 1 over [2.2, 3.8]; each bleeds into the other at 15 %.
  const speaking = (channel: number, at: number) => (channel === 0 ? at < 2 || (at >= 4 && at < 5) : at >= 2.2 && at < 3.8);
  const level = (channel: number, start: number) => (speaking(channel, start) ? 1 : speaking(1 - channel, start) ? 0.15 : 0);
  const merged = mergeChannelAttachments([channel0, channel1], { wordTiming: true, level });

  t.same(
    merged.segments.map((s) => [s.id, s.channel, s.speaker, s.start]),
    [
      ['seg_0', 0, 'channel_0_A', 0],
      ['seg_1', 1, 'channel_1_A', 2.2],
      ['seg_2', 0, 'channel_0_A', 4],
      ['seg_3', 1, 'unknown', 5.5],
    ],
    'in time order, renumbered, labelled within their channel (unknown stays)',
  );
  t.same(
    merged.words!.map((w) => [w.word, w.channel, w.speaker ?? null]),
    [
      ['good', 0, 'channel_0_A'],
      ['morning', 0, 'channel_0_A'],
      ['it', 1, 'channel_1_A'],
      ['hurts', 1, 'channel_1_A'],
      ['and', 0, 'channel_0_A'],
      ['then', 0, 'channel_0_A'],
      ['hm', 1, null],
    ],
    'words in time order, each with its channel',
  );
  t.ok(merged.words![6]!.review_required, 'a word over the ceiling stays to review');
  t.same(
    merged.speakers.map((s) => s.speaker),
    ['channel_0_A', 'channel_1_A'],
    "channel 0's B was channel 1's bleed",
  );
  t.same(
    merged.speakerSegments.map((s) => s.speaker),
    ['channel_0_A', 'channel_1_A', 'channel_0_A'],
    'the bleed turn is gone',
  );
  t.match(merged.timing, { detected_speaker_count: 2, word_timing: true, speaker_ceiling_reached: false, requested_max_speakers: 4 });

  const untimed = mergeChannelAttachments([{ ...channel0, words: null }, channel1], { wordTiming: false, level });
  t.equal(untimed.words, null, 'without word timing on a channel, no words');
});
