// The in-process path for plain 16 kHz mono 16-bit WAV (src/audio/whisper-ready-wav.ts): the same
// samples as ffmpeg's, bit for bit, and every irregular file left to ffmpeg.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { readWhisperReadyWav } from '../../src/audio/whisper-ready-wav.js';
import { encodeAs, speechWav } from '../helpers/audio-fixtures.js';

const RATE = 16_000;
let dir: string;
t.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-wav-'));
});
t.teardown(() => rm(dir, { recursive: true, force: true }));

t.test("a plain WAV is read in-process and gives ffmpeg's samples exactly", async (t) => {
  const path = await speechWav(7);
  const direct = await readWhisperReadyWav(path, RATE, 60 * RATE);
  t.ok(direct, 'read in-process');
  const viaFfmpeg = await decodeAudio(path, { maxSeconds: 60, timeoutMs: 30_000, directWav: false });
  t.equal(direct!.length, viaFfmpeg.length);
  t.ok(Buffer.from(direct!.buffer).equals(Buffer.from(viaFfmpeg.buffer)), 'bit-identical samples');
  t.same(await decodeAudio(path, { maxSeconds: 60, timeoutMs: 30_000 }), viaFfmpeg, 'decodeAudio takes the direct path');
  await t.rejects(decodeAudio(path, { maxSeconds: 5, timeoutMs: 30_000 }), { code: 'audio_too_long' }, 'the cap holds on this path too');
});

t.test('anything irregular goes to ffmpeg', async (t) => {
  const plain = await readFile(await speechWav(3));
  const variants: Array<[string, Buffer]> = [
    ['stereo 44.1 kHz', await readFile(await encodeAs(await speechWav(3), 'wav'))],
    ['a data chunk claiming more than the file', withUint32(plain, 40, plain.length)],
    ['another sample rate in the header', withUint32(plain, 24, 22_050)],
    ['a format tag other than PCM', withUint16(plain, 20, 3)],
    ['two channels in the header', withUint16(plain, 22, 2)],
    ['not RIFF', Buffer.concat([Buffer.from('RIFX'), plain.subarray(4)])],
  ];
  for (const [name, bytes] of variants) {
    const path = join(dir, `${name.replace(/\W+/g, '-')}.wav`);
    await writeFile(path, bytes);
    t.equal(await readWhisperReadyWav(path, RATE, 60 * RATE), null, name);
  }
  t.equal(await readWhisperReadyWav(await speechWav(7), RATE, RATE), null, 'far longer than the cap: ffmpeg stops early');
  t.equal(await readWhisperReadyWav(join(dir, 'missing.wav'), RATE, RATE), null, 'a file that cannot be opened: ffmpeg reports it');
});

function withUint32(bytes: Buffer, offset: number, value: number): Buffer {
  const copy = Buffer.from(bytes);
  copy.writeUInt32LE(value, offset);
  return copy;
}

function withUint16(bytes: Buffer, offset: number, value: number): Buffer {
  const copy = Buffer.from(bytes);
  copy.writeUInt16LE(value, offset);
  return copy;
}
