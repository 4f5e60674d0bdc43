// Generated conversations for diarization tests and the diarization benchmark: 2 to 4 espeak-ng
// voices of different variant, pitch and speed take turns reading the medical sentences, with
// pauses, quick turns and a few overlaps (mixed, not cut). The generator writes the exact reference
// turns: each turn's speech from its first to its last audible sample (espeak's own leading and
// trailing silence trimmed), in the conversation's timeline. Deterministic by seed; cached.
import { readFile, writeFile } from 'node:fs/promises';

import { cachedFile, FIXTURE_SAMPLE_RATE, MEDICAL_SENTENCES, mulberry32, type SpeakerVoice, spokenSentence, wavFileBytes } from './audio-fixtures.js';
import type { SpeakerTurn } from './diarization-error-rate.js';

/** Four voices as far apart as espeak-ng goes: sex variant, pitch, rate and accent. */
export const CONVERSATION_VOICES: Readonly<Record<string, SpeakerVoice>> = {
  A: { voice: 'en-us+m3', pitch: 35, speed: 150 },
  B: { voice: 'en-us+f3', pitch: 75, speed: 175 },
  C: { voice: 'en-gb+m7', pitch: 20, speed: 135 },
  D: { voice: 'en-us+f4', pitch: 90, speed: 195 },
};

/** A sample counts as speech above this (1 % of full scale): espeak's silence is exact zeros. */
const AUDIBLE = 328;

export interface Conversation {
  /** 16 kHz mono WAV. */
  path: string;
  seconds: number;
  /** Reference turns in time order, overlaps included. */
  turns: SpeakerTurn[];
}

export interface ConversationOptions {
  voices: 2 | 3 | 4;
  turns?: number;
  seed?: number;
}

export async function conversation(options: ConversationOptions): Promise<Conversation> {
  const { voices, turns = 12, seed = 1 } = options;
  const name = `conversation-${voices}v-${turns}t-seed${seed}`;
  const built = { value: null as { samples: Int16Array; turns: SpeakerTurn[] } | null };
  const build = async () => (built.value ??= await mix(voices, turns, seed));
  const path = await cachedFile(`${name}.wav`, async (tmp) => writeFile(tmp, wavFileBytes((await build()).samples)));
  const reference = await cachedFile(`${name}.turns.json`, async (tmp) => writeFile(tmp, JSON.stringify((await build()).turns)));
  const parsed = JSON.parse(await readFile(reference, 'utf8')) as SpeakerTurn[];
  const bytes = (await readFile(path)).length - 44;
  return { path, seconds: bytes / 2 / FIXTURE_SAMPLE_RATE, turns: parsed };
}

async function mix(voices: number, count: number, seed: number): Promise<{ samples: Int16Array; turns: SpeakerTurn[] }> {
  const random = mulberry32(seed * 7919 + voices);
  const speakers = Object.keys(CONVERSATION_VOICES).slice(0, voices);
  const planned: Array<{ speaker: string; audio: Int16Array; at: number }> = [];
  let cursor = Math.round(0.5 * FIXTURE_SAMPLE_RATE);
  let previous = '';
  for (let i = 0; i < count; i++) {
    // Every voice speaks early on; then anyone but the one who just spoke.
    const speaker =
      i < speakers.length
        ? speakers[i]
        : pick(
            speakers.filter((s) => s !== previous),
            random,
          );
    const sentence = Math.floor(random() * MEDICAL_SENTENCES.length);
    const audio = trim(await spokenSentence(sentence, CONVERSATION_VOICES[speaker]));
    if (i > 0) {
      const roll = random();
      // A few overlaps (the next voice starts before this one ends), quick turns, and pauses.
      const gapSeconds = roll < 0.15 ? -(0.3 + 0.4 * random()) : roll < 0.45 ? 0.1 + 0.15 * random() : 0.4 + 0.9 * random();
      const last = planned[planned.length - 1];
      cursor = Math.max(last.at + Math.round(0.5 * FIXTURE_SAMPLE_RATE), last.at + last.audio.length + Math.round(gapSeconds * FIXTURE_SAMPLE_RATE));
    }
    planned.push({ speaker, audio, at: cursor });
    previous = speaker;
  }
  const end = Math.max(...planned.map((p) => p.at + p.audio.length)) + Math.round(0.5 * FIXTURE_SAMPLE_RATE);
  const mixed = new Int32Array(end);
  for (const { audio, at } of planned) for (let i = 0; i < audio.length; i++) mixed[at + i] += audio[i];
  const samples = Int16Array.from(mixed, (v) => Math.max(-32768, Math.min(32767, v)));
  const turns = planned.map(({ speaker, audio, at }) => ({ speaker, start: at / FIXTURE_SAMPLE_RATE, end: (at + audio.length) / FIXTURE_SAMPLE_RATE }));
  return { samples, turns };
}

/** The samples from the first to the last audible one. */
function trim(samples: Int16Array): Int16Array {
  let first = 0;
  while (first < samples.length && Math.abs(samples[first]) < AUDIBLE) first++;
  let last = samples.length - 1;
  while (last > first && Math.abs(samples[last]) < AUDIBLE) last--;
  return samples.subarray(first, last + 1);
}

function pick<T>(items: T[], random: () => number): T {
  return items[Math.floor(random() * items.length)];
}

/**
 * Pairs of voices for short exchanges: every pair of CONVERSATION_VOICES, and alike pairs of one sex
 * (the two male voices among them), which differ in timbre and pitch but not in sex.
 */
export const EXCHANGE_PAIRS: ReadonlyArray<readonly [SpeakerVoice, SpeakerVoice]> = [
  [CONVERSATION_VOICES.A, CONVERSATION_VOICES.B],
  [CONVERSATION_VOICES.A, CONVERSATION_VOICES.C],
  [CONVERSATION_VOICES.A, CONVERSATION_VOICES.D],
  [CONVERSATION_VOICES.B, CONVERSATION_VOICES.C],
  [CONVERSATION_VOICES.B, CONVERSATION_VOICES.D],
  [CONVERSATION_VOICES.C, CONVERSATION_VOICES.D],
  [{ voice: 'en-us+m3' }, { voice: 'en-gb+f4' }],
  [{ voice: 'en-us' }, { voice: 'en-gb-x-rp', pitch: 20, speed: 130 }],
  [
    { voice: 'en-us+m3', pitch: 50 },
    { voice: 'en-us+m7', pitch: 30 },
  ],
  [
    { voice: 'en-us+f2', pitch: 60 },
    { voice: 'en-gb+f4', pitch: 80 },
  ],
];

export interface ExchangeOptions {
  /** The voices, speaking in turn (first, second, first, ...). */
  voices: readonly SpeakerVoice[];
  /** How many turns (at least one per voice). */
  turns: number;
  /** Each turn's length is drawn from [minSeconds, maxSeconds] (a sentence cut there, at most its whole length). */
  minSeconds?: number;
  maxSeconds?: number;
  seed?: number;
}

/**
 * A short exchange: `voices` take `turns` turns in order, each a sentence cut to a drawn length,
 * separated by pauses of 0.1-0.25 s (a quick turn, often inside one VAD region) or 0.4-1 s. No
 * overlaps. Exact reference turns, deterministic by seed, cached like `conversation`.
 */
export async function exchange(options: ExchangeOptions): Promise<Conversation> {
  const { voices, turns: count, minSeconds = 2, maxSeconds = 5, seed = 1 } = options;
  const tag = voices.map((v) => `${v.voice}-p${v.pitch ?? 50}-s${v.speed ?? 160}`).join('_');
  const name = `exchange-${tag}-${count}t-${minSeconds}-${maxSeconds}s-seed${seed}`;
  const built = { value: null as { samples: Int16Array; turns: SpeakerTurn[] } | null };
  const build = async () => (built.value ??= await mixExchange(voices, count, minSeconds, maxSeconds, seed));
  const path = await cachedFile(`${name}.wav`, async (tmp) => writeFile(tmp, wavFileBytes((await build()).samples)));
  const reference = await cachedFile(`${name}.turns.json`, async (tmp) => writeFile(tmp, JSON.stringify((await build()).turns)));
  const parsed = JSON.parse(await readFile(reference, 'utf8')) as SpeakerTurn[];
  const bytes = (await readFile(path)).length - 44;
  return { path, seconds: bytes / 2 / FIXTURE_SAMPLE_RATE, turns: parsed };
}

async function mixExchange(
  voices: readonly SpeakerVoice[],
  count: number,
  minSeconds: number,
  maxSeconds: number,
  seed: number,
): Promise<{ samples: Int16Array; turns: SpeakerTurn[] }> {
  const random = mulberry32(seed * 104_729 + count);
  const pieces: Array<{ speaker: string; audio: Int16Array; at: number }> = [];
  let cursor = Math.round(0.5 * FIXTURE_SAMPLE_RATE);
  for (let i = 0; i < count; i++) {
    const speaker = String.fromCharCode(65 + (i % voices.length));
    const target = Math.round((minSeconds + (maxSeconds - minSeconds) * random()) * FIXTURE_SAMPLE_RATE);
    const sentence = Math.floor(random() * MEDICAL_SENTENCES.length);
    const whole = trim(await spokenSentence(sentence, voices[i % voices.length]));
    // Cut at the target length, then back to the last audible sample so the reference ends on speech.
    const audio = trim(whole.subarray(0, Math.min(whole.length, target)));
    if (i > 0) {
      const roll = random();
      const gapSeconds = roll < 0.3 ? 0.1 + 0.15 * random() : 0.4 + 0.6 * random();
      cursor += Math.round(gapSeconds * FIXTURE_SAMPLE_RATE);
    }
    pieces.push({ speaker, audio, at: cursor });
    cursor += audio.length;
  }
  const samples = new Int16Array(cursor + Math.round(0.5 * FIXTURE_SAMPLE_RATE));
  for (const { audio, at } of pieces) samples.set(audio, at);
  const turns = pieces.map(({ speaker, audio, at }) => ({ speaker, start: at / FIXTURE_SAMPLE_RATE, end: (at + audio.length) / FIXTURE_SAMPLE_RATE }));
  return { samples, turns };
}
