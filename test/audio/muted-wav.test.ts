// A redacted copy of a recording (src/audio/muted-wav.ts): real ffmpeg over a generated WAV, the copy
// decoded back. Samples inside the padded spans are zero, the others are the original's, the file is
// a plain 16 kHz mono 16-bit WAV, and a copy that cannot be made leaves no file behind.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import t from 'tap';

import { decodeAudio, padAndMergeSpans, TONE_HZ, UndecodableAudioError, writeMutedWav } from '../../src/audio/index.js';
import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
import { encodeAs, wavFileBytes } from '../helpers/audio-fixtures.js';

const SECONDS = 6;
const DECODE = { maxSeconds: 60, timeoutMs: 30_000 };

/** A tone loud everywhere (never zero at a sample), so silence can only be the copy's doing. */
function toneWav(dir: string): string {
  const samples = new Int16Array(SECONDS * SAMPLE_RATE);
  for (let i = 0; i < samples.length; i += 1) samples[i] = 8000 + Math.round(4000 * Math.sin((2 * Math.PI * 440 * i) / SAMPLE_RATE));
  const path = join(dir, 'tone.wav');
  writeFileSync(path, wavFileBytes(samples));
  return path;
}

t.test('padAndMergeSpans pads each span, clamps at 0, sorts and merges what overlaps or touches', async (t) => {
  const spans = [
    { start: 3, end: 3.5 },
    { start: 0.1, end: 0.3 },
    { start: 3.7, end: 4 },
    { start: 5, end: 4 },
  ];
  t.same(padAndMergeSpans(spans, 0.2), [
    { start: 0, end: 0.5 },
    { start: 2.8, end: 4.2 },
  ]);
  t.same(padAndMergeSpans([], 0.2), []);
});

t.test('samples inside the spans are zero; the others are the original', async (t) => {
  const dir = t.testdir();
  const input = toneWav(dir);
  const output = join(dir, 'copy.wav');
  const spans = padAndMergeSpans(
    [
      { start: 1, end: 1.5 },
      { start: 1.6, end: 2 },
      { start: 4.25, end: 4.5 },
    ],
    0.2,
  );
  const made = await writeMutedWav(input, output, { container: 'wav', spans, ...DECODE });
  t.equal(made.seconds, SECONDS);
  t.equal(made.bytes, 44 + SECONDS * SAMPLE_RATE * 2, 'a 44-byte header and the samples');
  t.equal(statSync(output).size, made.bytes);
  t.equal(statSync(output).mode & 0o777, 0o600, 'private');
  const original = await decodeAudio(input, DECODE);
  // Read in-process, as whisper-ready: the header is a plain 16 kHz mono 16-bit one.
  const copy = await decodeAudio(output, DECODE);
  t.equal(copy.length, original.length, 'as long as the original');
  const muted = (i: number) => spans.some((s) => i >= Math.round(s.start * SAMPLE_RATE) && i < Math.round(s.end * SAMPLE_RATE));
  let inside = 0;
  let changedOutside = 0;
  let nonZeroInside = 0;
  for (let i = 0; i < copy.length; i += 1) {
    if (muted(i)) {
      inside += 1;
      if (copy[i] !== 0) nonZeroInside += 1;
    } else if (copy[i] !== original[i]) changedOutside += 1;
  }
  t.equal(inside, Math.round(1.4 * SAMPLE_RATE) + Math.round(0.65 * SAMPLE_RATE), 'the spans as merged: 0.8-2.2 and 4.05-4.7');
  t.equal(nonZeroInside, 0, 'silent inside');
  t.equal(changedOutside, 0, 'untouched outside');
});

/** The share of a block's energy at `hz` (Goertzel): near 1 for a pure sine at `hz`, near 0 for one well away from it. */
function energyShareAt(samples: Float32Array, hz: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * hz) / SAMPLE_RATE);
  let s1 = 0;
  let s2 = 0;
  let total = 0;
  for (const x of samples) {
    const s0 = x + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
    total += x * x;
  }
  const power = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
  return total === 0 ? 0 : (2 * power) / (samples.length * total);
}

t.test('fill tone: a 1 kHz sine at -12 dBFS inside the spans, the original outside', async (t) => {
  const dir = t.testdir();
  const input = toneWav(dir);
  const output = join(dir, 'copy.wav');
  const spans = padAndMergeSpans(
    [
      { start: 1, end: 1.5 },
      { start: 4.25, end: 4.5 },
    ],
    0.2,
  );
  await writeMutedWav(input, output, { container: 'wav', spans, fill: 'tone', ...DECODE });
  const original = await decodeAudio(input, DECODE);
  const copy = await decodeAudio(output, DECODE);
  t.equal(copy.length, original.length);
  const at = (s: number) => Math.round(s * SAMPLE_RATE);
  for (const span of spans) {
    const inside = copy.slice(at(span.start), at(span.end));
    t.ok(energyShareAt(inside, TONE_HZ) > 0.99, `${span.start}-${span.end} s: the energy is at 1 kHz`);
    t.ok(energyShareAt(inside, 440) < 0.01, `${span.start}-${span.end} s: none of the original's 440 Hz`);
    const peak = inside.reduce((max, x) => Math.max(max, Math.abs(x)), 0);
    t.ok(Math.abs(peak - 0.25) < 0.001, `peak at a quarter of full scale (${peak.toFixed(4)})`);
    // Zero crossings: two a period, 1000 periods a second.
    let crossings = 0;
    for (let i = 1; i < inside.length; i += 1) if (Math.sign(inside[i]) !== Math.sign(inside[i - 1]) && inside[i] !== 0) crossings += 1;
    t.ok(Math.abs(crossings / (inside.length / SAMPLE_RATE) - 2 * TONE_HZ) < 20, `about ${2 * TONE_HZ} zero crossings a second`);
  }
  t.ok(energyShareAt(original.slice(at(1), at(1.5)), TONE_HZ) < 0.01, 'the original had no 1 kHz there');
  const toned = (i: number) => spans.some((s) => i >= at(s.start) && i < at(s.end));
  let changedOutside = 0;
  for (let i = 0; i < copy.length; i += 1) if (!toned(i) && copy[i] !== original[i]) changedOutside += 1;
  t.equal(changedOutside, 0, 'untouched outside');
});

t.test('another container is decoded to the same 16 kHz mono 16-bit WAV', async (t) => {
  const dir = t.testdir();
  const mp3 = await encodeAs(toneWav(dir), 'mp3');
  const output = join(dir, 'copy.wav');
  const made = await writeMutedWav(mp3, output, { container: 'mp3', spans: [{ start: 2, end: 3 }], ...DECODE });
  t.ok(Math.abs(made.seconds - SECONDS) < 0.1, 'about as long');
  const copy = await decodeAudio(output, DECODE);
  t.ok(
    copy.slice(2 * SAMPLE_RATE, 3 * SAMPLE_RATE).every((x) => x === 0),
    'silent inside',
  );
  t.ok(
    copy.slice(SAMPLE_RATE, 2 * SAMPLE_RATE - 10).some((x) => x !== 0),
    'sound before',
  );
});

t.test('a copy that cannot be made leaves no file', async (t) => {
  const dir = t.testdir();
  const junk = join(dir, 'junk.wav');
  writeFileSync(junk, Buffer.alloc(4096, 7));
  const output = join(dir, 'copy.wav');
  await t.rejects(writeMutedWav(junk, output, { container: 'wav', spans: [], ...DECODE }), UndecodableAudioError);
  t.notOk(existsSync(output), 'undecodable: nothing written');
  const tone = toneWav(dir);
  await t.rejects(writeMutedWav(tone, output, { container: 'wav', spans: [], maxSeconds: 2, timeoutMs: 30_000 }), { code: 'audio_too_long' });
  t.notOk(existsSync(output), 'too long: nothing written');
  writeFileSync(output, 'there');
  await t.rejects(writeMutedWav(tone, output, { container: 'wav', spans: [], ...DECODE }), { code: 'EEXIST' }, 'never overwrites');
});
