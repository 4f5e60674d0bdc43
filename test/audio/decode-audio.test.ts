import { readFile } from 'node:fs/promises';

import t from 'tap';

import { decodeAudio, probeAudio } from '../../src/audio/index.js';
import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
import { encodeAs, FIXTURE_FORMATS, halfSilenceWav, jfkWav, speechWav } from '../helpers/audio-fixtures.js';

const SECONDS = 8;
const OPTIONS = { maxSeconds: 60, timeoutMs: 30_000 };

/** Lossy codecs add priming/padding samples (AAC: 1024 at the start, MP3/Opus some at the end). */
const LENGTH_TOLERANCE_SAMPLES = 0.1 * SAMPLE_RATE;

function rms(samples: Float32Array, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i += 1) sum += samples[i] * samples[i];
  return Math.sqrt(sum / Math.max(1, to - from));
}

t.test('every container decodes to 16 kHz mono float PCM of the right length', async (t) => {
  const wav = await speechWav(SECONDS);
  for (const format of FIXTURE_FORMATS) {
    const pcm = await decodeAudio(await encodeAs(wav, format), OPTIONS);
    t.ok(pcm instanceof Float32Array, `${format}: Float32Array`);
    const expected = SECONDS * SAMPLE_RATE;
    t.ok(Math.abs(pcm.length - expected) <= LENGTH_TOLERANCE_SAMPLES, `${format}: ${pcm.length} samples is within 100 ms of ${expected}`);
    t.equal(pcm.buffer.byteLength, pcm.byteLength, `${format}: the buffer holds exactly the samples`);
    let peak = 0;
    for (const sample of pcm) peak = Math.max(peak, Math.abs(sample));
    t.ok(peak > 0.05 && peak <= 1.001, `${format}: peak ${peak.toFixed(3)} is speech, in range`);
  }
});

t.test('a 16 kHz mono s16 WAV decodes to exactly its samples / 32768', async (t) => {
  const path = await speechWav(SECONDS);
  const file = await readFile(path);
  const s16 = new Int16Array(file.buffer, file.byteOffset + 44, (file.length - 44) / 2);
  const pcm = await decodeAudio(path, OPTIONS);
  t.equal(pcm.length, s16.length);
  let mismatches = 0;
  for (let i = 0; i < s16.length; i += 1) if (pcm[i] !== s16[i] / 32768) mismatches += 1;
  t.equal(mismatches, 0, 'no resampling or remixing when none is needed');
});

t.test('lossless containers decode to identical samples', async (t) => {
  const wav = await speechWav(SECONDS);
  const fromWav = await decodeAudio(await encodeAs(wav, 'wav'), OPTIONS);
  const fromFlac = await decodeAudio(await encodeAs(wav, 'flac'), OPTIONS);
  t.ok(Buffer.from(fromFlac.buffer).equals(Buffer.from(fromWav.buffer)));
});

t.test('preallocating from the probed duration does not change the result', async (t) => {
  for (const format of ['mp3', 'aac', 'webm-live'] as const) {
    const path = await encodeAs(await speechWav(SECONDS), format);
    const { durationSeconds } = await probeAudio(path, { timeoutMs: 20_000 });
    const guided = await decodeAudio(path, { ...OPTIONS, expectedSeconds: durationSeconds });
    const unguided = await decodeAudio(path, OPTIONS);
    const tooSmallGuess = await decodeAudio(path, { ...OPTIONS, expectedSeconds: 0.5 });
    t.ok(Buffer.from(guided.buffer).equals(Buffer.from(unguided.buffer)), `${format}: probed size`);
    t.ok(Buffer.from(tooSmallGuess.buffer).equals(Buffer.from(unguided.buffer)), `${format}: an underestimate grows`);
  }
});

t.test('audio exactly at maxSeconds is accepted', async (t) => {
  const pcm = await decodeAudio(await speechWav(5), { maxSeconds: 5, timeoutMs: 30_000 });
  t.equal(pcm.length, 5 * SAMPLE_RATE);
});

t.test('the JFK sample decodes to 11 s', async (t) => {
  const pcm = await decodeAudio(await jfkWav(), OPTIONS);
  t.ok(Math.abs(pcm.length - 11 * SAMPLE_RATE) <= LENGTH_TOLERANCE_SAMPLES, `${pcm.length} samples`);
});

t.test('halfSilenceWav is speech, then digital silence', async (t) => {
  const pcm = await decodeAudio(await halfSilenceWav(10), OPTIONS);
  t.equal(pcm.length, 10 * SAMPLE_RATE);
  const half = pcm.length / 2;
  t.ok(rms(pcm, 0, half) > 0.01, 'first half has speech');
  t.equal(rms(pcm, half), 0, 'second half is all zeros');
});
