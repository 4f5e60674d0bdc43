import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import t from 'tap';

import { SNIFF_BYTES, sniffContainer, sniffFile } from '../../src/audio/index.js';
import { encodeAs, FIXTURE_FORMATS, type FixtureFormat, pngImage, randomBytesFile, speechWav } from '../helpers/audio-fixtures.js';

const bytes = (...parts: Array<string | number[] | Uint8Array>): Uint8Array =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? Array.from(part, (c) => c.charCodeAt(0)) : Array.from(part))));
const zeros = (n: number): number[] => new Array<number>(n).fill(0);
const u32be = (n: number): number[] => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

/** ID3v2.4 header announcing `size` bytes of tag body (syncsafe size). */
const id3Header = (size: number): number[] => [...bytes('ID3', [4, 0, 0]), (size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f];

// MPEG-1 Layer III, 128 kb/s, 44.1 kHz, no padding: floor(144000 * 128 / 44100) = 417 bytes per frame.
const MP3_HEADER = [0xff, 0xfb, 0x90, 0x00];
const MP3_FRAME_BYTES = 417;
const mp3Frames = (count: number): number[] => Array.from({ length: count }, () => [...MP3_HEADER, ...zeros(MP3_FRAME_BYTES - 4)]).flat();

// ADTS, MPEG-4 AAC LC, 44.1 kHz, stereo, no CRC, 100-byte frames.
const ADTS_HEADER = [0xff, 0xf1, 0x50, 0x80, 0x0c, 0x9f, 0xfc];
const adtsFrames = (count: number): number[] => Array.from({ length: count }, () => [...ADTS_HEADER, ...zeros(100 - 7)]).flat();

t.test('magic numbers of every accepted container', async (t) => {
  const cases: Array<[string, Uint8Array, string | null]> = [
    ['RIFF WAVE', bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt '), 'wav'],
    ['RF64 WAVE', bytes('RF64', [0xff, 0xff, 0xff, 0xff], 'WAVEds64'), 'wav'],
    ['BW64 WAVE', bytes('BW64', [0xff, 0xff, 0xff, 0xff], 'WAVEds64'), 'wav'],
    ['RIFF AVI is not audio', bytes('RIFF', [0, 0, 0, 0], 'AVI LIST'), null],
    ['RIFF WEBP is not audio', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), null],
    ['ftyp M4A', bytes(u32be(32), 'ftypM4A ', zeros(20)), 'mp4'],
    ['ftyp isom', bytes(u32be(32), 'ftypisom', zeros(20)), 'mp4'],
    ['ftyp 3gp4', bytes(u32be(24), 'ftyp3gp4', zeros(12)), 'mp4'],
    ['ftyp heic is an image', bytes(u32be(24), 'ftypheic', zeros(12)), null],
    ['ftyp avif is an image', bytes(u32be(24), 'ftypavif', zeros(12)), null],
    ['EBML (Matroska/WebM)', bytes([0x1a, 0x45, 0xdf, 0xa3], zeros(28)), 'webm'],
    ['OggS', bytes('OggS', [0, 2], zeros(20)), 'ogg'],
    ['fLaC', bytes('fLaC', [0, 0, 0, 0x22]), 'flac'],
    ['MP3 frames', bytes(mp3Frames(3)), 'mp3'],
    ['ADTS frames', bytes(adtsFrames(3)), 'aac'],
    ['ID3 then MP3 frames', bytes(id3Header(20), zeros(20), mp3Frames(2)), 'mp3'],
    ['ID3 then fLaC', bytes(id3Header(20), zeros(20), 'fLaC', [0, 0, 0, 0x22], zeros(34)), 'flac'],
    ['ID3 then ADTS', bytes(id3Header(20), zeros(20), adtsFrames(2)), 'aac'],
    ['ID3 then stray zeros then MP3', bytes(id3Header(20), zeros(20), zeros(7), mp3Frames(2)), 'mp3'],
    ['ID3 running past the buffer: assumed MP3', bytes(id3Header(100_000), zeros(200)), 'mp3'],
    ['ID3 then PNG', bytes(id3Header(4), zeros(4), [0x89], 'PNG\r\n', [0x1a, 0x0a], zeros(20)), null],
  ];
  for (const [name, input, expected] of cases) t.equal(sniffContainer(input), expected, name);
});

t.test('not audio, or not a container we accept', async (t) => {
  t.equal(sniffContainer(new Uint8Array()), null, 'empty');
  t.equal(sniffContainer(bytes([0x89], 'PNG\r\n', [0x1a, 0x0a], zeros(30))), null, 'PNG');
  t.equal(sniffContainer(bytes('%PDF-1.7\n')), null, 'PDF');
  t.equal(sniffContainer(bytes('#EXTM3U\n#EXTINF:10,\nhttp://example.com/a.ts\n')), null, 'HLS playlist');
  t.equal(sniffContainer(bytes("ffconcat version 1.0\nfile 'http://example.com/a.wav'\n")), null, 'ffconcat list');
  t.equal(sniffContainer(bytes('The patient reports chest pain.')), null, 'text');
  t.equal(sniffContainer(bytes([0x00, 0x00, 0x01, 0xba], zeros(28))), null, 'MPEG program stream (video)');
  t.equal(sniffContainer(bytes('FORM', [0, 0, 0, 0], 'AIFF')), null, 'AIFF is not on the contract list');
});

t.test('frame-sync formats need a second frame header where the first frame says it is', async (t) => {
  const oneFrameThenGarbage = bytes(MP3_HEADER, zeros(MP3_FRAME_BYTES - 4), [0x12, 0x34, 0x56, 0x78], zeros(100));
  t.equal(sniffContainer(oneFrameThenGarbage), null, 'a lone plausible header is not enough');
  t.equal(sniffContainer(bytes(MP3_HEADER, zeros(50))), 'mp3', 'a header whose next frame lies beyond the buffer is accepted');
  t.equal(sniffContainer(bytes([0xff, 0xff, 0x90, 0x00], zeros(500))), null, 'Layer I is not accepted');
  t.equal(sniffContainer(bytes([0xff, 0xfb, 0xf0, 0x00], zeros(500))), null, 'bitrate index 15 is invalid');
  t.equal(sniffContainer(bytes([0xff, 0xfb, 0x9c, 0x00], zeros(500))), null, 'sample-rate index 3 is reserved');
  t.equal(sniffContainer(bytes([0xff, 0xf1, 0x50, 0x80, 0x00, 0x1f, 0xfc], zeros(100))), null, 'ADTS frame shorter than its header');
});

t.test('random bytes are not audio', async (t) => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const path = await randomBytesFile(SNIFF_BYTES * 2, seed);
    t.equal(await sniffFile(path), null, `seed ${seed}`);
  }
});

const EXPECTED_CONTAINER: Record<FixtureFormat, string> = {
  wav: 'wav',
  mp3: 'mp3',
  m4a: 'mp4',
  mp4: 'mp4',
  webm: 'webm',
  'webm-live': 'webm',
  ogg: 'ogg',
  opus: 'ogg',
  flac: 'flac',
  aac: 'aac',
};

t.test('files written by ffmpeg are sniffed by content, whatever their name', async (t) => {
  const wav = await speechWav(3);
  const dir = t.testdir();
  for (const format of FIXTURE_FORMATS) {
    const encoded = await encodeAs(wav, format);
    t.equal(await sniffFile(encoded), EXPECTED_CONTAINER[format], format);
    const misnamed = join(dir, `${format}-renamed.wav`);
    await copyFile(encoded, misnamed);
    t.equal(await sniffFile(misnamed), EXPECTED_CONTAINER[format], `${format} renamed .wav`);
    const head = (await readFile(encoded)).subarray(0, SNIFF_BYTES);
    t.equal(sniffContainer(head), EXPECTED_CONTAINER[format], `${format}, first ${SNIFF_BYTES} bytes`);
  }
});

t.test('a PNG or a text file renamed .wav is not audio', async (t) => {
  const dir = t.testdir();
  const png = join(dir, 'photo.wav');
  await copyFile(await pngImage(), png);
  t.equal(await sniffFile(png), null);
  const text = join(dir, 'notes.wav');
  await writeFile(text, 'Patient: John Doe. Chest pain since Tuesday.\n'.repeat(100));
  t.equal(await sniffFile(text), null);
  const empty = join(dir, 'empty.wav');
  await writeFile(empty, '');
  t.equal(await sniffFile(empty), null);
});

t.test('sniffFile reads past an ID3 tag larger than SNIFF_BYTES', async (t) => {
  const flac = await readFile(await encodeAs(await speechWav(3), 'flac'));
  const tagBody = 100_000; // e.g. embedded cover art
  const tagged = bytes(id3Header(tagBody), zeros(tagBody), flac);
  const dir = t.testdir();
  const path = join(dir, 'tagged.flac');
  await writeFile(path, tagged);
  t.equal(await sniffFile(path), 'flac');
  t.equal(sniffContainer(tagged.subarray(0, SNIFF_BYTES)), 'mp3', 'from the first bytes alone, MP3 is the documented guess');

  const tagOnly = join(dir, 'tag-only.mp3');
  await writeFile(tagOnly, bytes(id3Header(64), zeros(64)));
  t.equal(await sniffFile(tagOnly), null, 'an ID3 tag with nothing after it is not audio');
});
