// A generated stereo consultation for multichannel tests and `bench multichannel`: two espeak-ng voices,
// each on its own channel, taking turns with pauses and a few overlaps, each heard on the other's
// channel at `bleed` of its level (a second microphone in the same room). Exact reference turns per
// channel (the voice's first to last audible sample); deterministic by seed; cached.
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';

import { cachedFile, FIXTURE_SAMPLE_RATE, MEDICAL_SENTENCES, mulberry32, spokenSentence } from './audio-fixtures.js';
import { CONVERSATION_VOICES } from './conversations.js';
import type { SpeakerTurn } from './diarization-error-rate.js';

/** A sample counts as speech above this (1 % of full scale): espeak's silence is exact zeros. */
const AUDIBLE = 328;

export interface StereoConsultation {
  /** 16 kHz 2-channel 16-bit WAV. */
  path: string;
  seconds: number;
  /** Reference turns, `speaker` the channel's label (`channel_0`, `channel_1`). */
  turns: SpeakerTurn[];
}

export async function stereoConsultation(options: { turns?: number; bleed?: number; seed?: number } = {}): Promise<StereoConsultation> {
  const { turns = 8, bleed = 0.15, seed = 1 } = options;
  const name = `stereo-consultation-${turns}t-b${Math.round(bleed * 100)}-seed${seed}`;
  const built = { value: null as { bytes: Buffer; turns: SpeakerTurn[] } | null };
  const build = async () => (built.value ??= await mix(turns, bleed, seed));
  const path = await cachedFile(`${name}.wav`, async (tmp) => writeFile(tmp, (await build()).bytes));
  const reference = await cachedFile(`${name}.turns.json`, async (tmp) => writeFile(tmp, JSON.stringify((await build()).turns)));
  const bytes = (await readFile(path)).length - 44;
  return { path, seconds: bytes / 4 / FIXTURE_SAMPLE_RATE, turns: JSON.parse(await readFile(reference, 'utf8')) as SpeakerTurn[] };
}

async function mix(count: number, bleed: number, seed: number): Promise<{ bytes: Buffer; turns: SpeakerTurn[] }> {
  const random = mulberry32(seed * 104_729 + count);
  const voices = [CONVERSATION_VOICES.A!, CONVERSATION_VOICES.B!];
  const planned: Array<{ channel: number; audio: Int16Array; at: number }> = [];
  let cursor = Math.round(0.5 * FIXTURE_SAMPLE_RATE);
  for (let i = 0; i < count; i++) {
    const channel = i % 2;
    const audio = trim(await spokenSentence(Math.floor(random() * MEDICAL_SENTENCES.length), voices[channel]!));
    if (i > 0) {
      const last = planned.at(-1)!;
      const roll = random();
      // A few overlaps (the next voice starts before this one ends), quick turns, and pauses.
      const gap = roll < 0.25 ? -(0.3 + 0.4 * random()) : roll < 0.5 ? 0.1 + 0.15 * random() : 0.4 + 0.8 * random();
      cursor = Math.max(last.at + Math.round(0.5 * FIXTURE_SAMPLE_RATE), last.at + last.audio.length + Math.round(gap * FIXTURE_SAMPLE_RATE));
    }
    planned.push({ channel, audio, at: cursor });
  }
  const frames = Math.max(...planned.map((p) => p.at + p.audio.length)) + Math.round(0.5 * FIXTURE_SAMPLE_RATE);
  const mixed = [new Float64Array(frames), new Float64Array(frames)];
  for (const { channel, audio, at } of planned) {
    for (let i = 0; i < audio.length; i++) {
      mixed[channel]![at + i]! += audio[i]!;
      mixed[1 - channel]![at + i]! += bleed * audio[i]!;
    }
  }
  const samples = new Int16Array(frames * 2);
  for (let i = 0; i < frames; i++) for (const c of [0, 1]) samples[i * 2 + c] = Math.max(-32768, Math.min(32767, Math.round(mixed[c]![i]!)));
  const turns = planned.map(({ channel, audio, at }) => ({
    speaker: `channel_${channel}`,
    start: at / FIXTURE_SAMPLE_RATE,
    end: (at + audio.length) / FIXTURE_SAMPLE_RATE,
  }));
  return { bytes: stereoWav(samples), turns };
}

/** A 16 kHz mono 16-bit WAV's speech on one channel of a stereo WAV, the other silent (cached). */
export async function oneSidedStereo(monoWav: string, channel: 0 | 1): Promise<string> {
  const name = `one-sided-${channel}-${basename(monoWav)}`;
  return cachedFile(name, async (tmp) => {
    const bytes = await readFile(monoWav);
    const mono = new Int16Array(bytes.buffer, bytes.byteOffset + 44, Math.floor((bytes.length - 44) / 2));
    const samples = new Int16Array(mono.length * 2);
    for (let i = 0; i < mono.length; i++) samples[i * 2 + channel] = mono[i]!;
    await writeFile(tmp, stereoWav(samples));
  });
}

function stereoWav(samples: Int16Array): Buffer {
  const dataBytes = samples.length * 2;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(2, 22); // stereo
  header.writeUInt32LE(FIXTURE_SAMPLE_RATE, 24);
  header.writeUInt32LE(FIXTURE_SAMPLE_RATE * 4, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, dataBytes)]);
}

function trim(samples: Int16Array): Int16Array {
  let first = 0;
  while (first < samples.length && Math.abs(samples[first]!) < AUDIBLE) first++;
  let last = samples.length - 1;
  while (last > first && Math.abs(samples[last]!) < AUDIBLE) last--;
  return samples.subarray(first, last + 1);
}
