// Packing speech regions and carrying times back (src/pipeline/speech-regions.ts), and where a long
// job's chunk is cut (src/pipeline/chunk-cut.ts), on synthetic PCM with known positions.
import t from 'tap';

import { chooseCut, cutSearchSeconds } from '../../src/pipeline/chunk-cut.js';
import {
  overlapWithSpeech,
  packRegions,
  SEPARATOR_SECONDS,
  type SpeechRegion,
  toOriginalTime,
  WINDOW_SECONDS,
  windowRegions,
} from '../../src/pipeline/speech-regions.js';

const RATE = 16_000;

/** PCM whose every sample holds its own time in seconds, so a packed sample tells where it came from. */
function clock(seconds: number): Float32Array {
  const pcm = new Float32Array(seconds * RATE);
  for (let i = 0; i < pcm.length; i++) pcm[i] = i / RATE;
  return pcm;
}

t.test('packing lays the regions end to end with a separator of silence between them', async (t) => {
  const pcm = clock(20);
  const packed = packRegions(pcm, RATE, [
    { start: 2, end: 3 },
    { start: 10, end: 12.5 },
  ]);
  const separator = SEPARATOR_SECONDS * RATE;
  t.equal(packed.pcm.length, 1 * RATE + separator + 2.5 * RATE);
  t.equal(packed.speechSeconds, 3.5);
  t.equal(packed.pcm[0], 2, 'first sample is from 2 s');
  t.equal(packed.pcm[RATE - 1], Math.fround(2 + (RATE - 1) / RATE), 'last sample of region 1');
  t.equal(packed.pcm[RATE], 0, 'separator is silence');
  t.equal(packed.pcm[RATE + separator], 10, 'region 2 starts after the separator');
});

t.test('times on the packed audio map back exactly inside regions and to edges in separators', async (t) => {
  const packed = packRegions(clock(60), RATE, [
    { start: 5, end: 8 },
    { start: 40, end: 41 },
  ]);
  t.equal(toOriginalTime(packed, 0, 'start'), 5);
  t.equal(toOriginalTime(packed, 1.25, 'start'), 6.25);
  t.equal(toOriginalTime(packed, 3, 'end'), 8, 'end of region 1');
  // 3.05 s lies in the separator: a start goes forward to region 2, an end back to region 1.
  t.equal(toOriginalTime(packed, 3.05, 'start'), 40);
  t.equal(toOriginalTime(packed, 3.05, 'end'), 8);
  t.equal(toOriginalTime(packed, 3 + SEPARATOR_SECONDS + 0.5, 'start'), 40.5);
  t.equal(toOriginalTime(packed, 99, 'end'), 41, 'past the end clamps to the last region');
});

t.test('regions beyond the audio are clamped, empty ones dropped', async (t) => {
  const packed = packRegions(clock(10), RATE, [
    { start: -1, end: 1 },
    { start: 9.5, end: 12 },
    { start: 11, end: 13 },
  ]);
  t.equal(packed.pieces.length, 2);
  t.equal(packed.speechSeconds, 1.5);
});

/** Packed seconds of one window: its regions and the separators between them. */
function packedLength(window: readonly SpeechRegion[]): number {
  return window.reduce((sum, r) => sum + (r.end - r.start), 0) + SEPARATOR_SECONDS * (window.length - 1);
}

t.test('windows: as few as fit, of even length, cut only at region edges, every region once and in order', async (t) => {
  // 43 s of speech in 4.3 s utterances: greedy packing alone would give 29.9 s + 13.1 s.
  const regions = Array.from({ length: 10 }, (_, i) => ({ start: i * 6, end: i * 6 + 4.3 }));
  const windows = windowRegions(regions);
  t.equal(windows.length, 2, 'two windows, as few as fit');
  t.same(
    windows.map((w) => w.length),
    [5, 5],
    'five utterances each',
  );
  t.same(windows.flat(), regions, 'every region once, in order, uncut');
  for (const w of windows) t.ok(packedLength(w) <= WINDOW_SECONDS, 'each window fits');

  // Uneven utterances: the longest window is as short as the edges allow.
  const uneven = [2, 9, 3, 8, 1, 7, 6, 5, 4, 10].map((length, i) => ({ start: i * 12, end: i * 12 + length }));
  const packed = windowRegions(uneven);
  // 55.9 s packed: no cut at an edge leaves two windows of at most 29.9 s, so three.
  t.equal(packed.length, 3);
  t.same(packed.flat(), uneven, 'every region once, in order, uncut');
  const longest = Math.max(...packed.map(packedLength));
  t.ok(longest <= bestLongest(uneven, 3) + 1e-3, 'the longest window is as short as any cut into three allows');
  // Greedy packing alone: 2+9+3+8+1 (23.4 s), 7+6+5+4 (22.3 s), 10 s.
  t.ok(longest < 23.4, 'and shorter than greedy packing gives');
});

t.test('windows: short speech is one window; a region longer than a window is cut into equal pieces', async (t) => {
  t.same(windowRegions([{ start: 1, end: 4 }]), [[{ start: 1, end: 4 }]]);
  t.same(windowRegions([]), []);
  const long = windowRegions([{ start: 0, end: 45 }]);
  t.same(long, [[{ start: 0, end: 22.5 }], [{ start: 22.5, end: 45 }]], 'two halves, not 29.9 s and 15.1 s');
});

/** The shortest longest window over every way to cut `regions` into `count` consecutive windows. */
function bestLongest(regions: readonly SpeechRegion[], count: number): number {
  if (count === 1) return packedLength(regions);
  let best = Infinity;
  for (let cut = 1; cut <= regions.length - count + 1; cut++) {
    best = Math.min(best, Math.max(packedLength(regions.slice(0, cut)), bestLongest(regions.slice(cut), count - 1)));
  }
  return best;
}

t.test('overlap with speech', async (t) => {
  const speech = [
    { start: 1, end: 2 },
    { start: 3, end: 5 },
  ];
  t.equal(overlapWithSpeech(0, 10, speech), 3);
  t.equal(overlapWithSpeech(1.5, 3.5, speech), 1);
  t.equal(overlapWithSpeech(6, 7, speech), 0);
});

t.test('a chunk is cut in the longest pause near its target, never inside speech', async (t) => {
  const target = 300;
  const window = target + cutSearchSeconds(target);
  // Speech runs across the old fixed boundary (290-310 s); pauses at 281-283 (2 s) and 318-322 (4 s).
  const regions = [
    { start: 200, end: 281 },
    { start: 283, end: 318 },
    { start: 322, end: 330 },
  ];
  const cut = chooseCut(regions, window, target, false);
  t.equal(cut, 320, 'middle of the longest pause in range');
  for (const r of regions) t.notOk(cut > r.start && cut < r.end, 'not inside a region');
});

t.test('chunk cuts: the last window is taken whole; silence is cut at the target; only far pauses are ignored', async (t) => {
  t.equal(chooseCut([{ start: 0, end: 100 }], 250, 300, true), 250, 'last window');
  t.equal(chooseCut([{ start: 0, end: 320 }], 330, 300, true), 330, 'last window longer than the target');
  // No speech at all near the target: the whole range is one pause; its middle lies at the target.
  t.equal(chooseCut([{ start: 0, end: 100 }], 330, 300, false), 300);
  // A pause far from the target (at 100 s) is not used; a zero-length VAD split at 301 s is.
  const cut = chooseCut(
    [
      { start: 0, end: 99 },
      { start: 101, end: 301 },
      { start: 301, end: 330 },
    ],
    330,
    300,
    false,
  );
  t.equal(cut, 301);
});
