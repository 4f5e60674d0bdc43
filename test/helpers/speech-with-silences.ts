/**
 * Speech with known silences, for voice activity detection tests: espeak-ng sentences laid out with
 * digital silence of chosen lengths between them, and where each sentence truly is. The truth comes
 * from the samples themselves (the first and last sample of each sentence whose level reaches
 * TRUTH_LEVEL), not from the layout, since espeak pads its output with a little silence of its own.
 * Sentences are cached in test/.cache/audio (as audio-fixtures.ts does, written under a temporary
 * name and renamed into place); the layout is assembled in memory.
 */
import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { promisify } from 'node:util';

import { cachedFile, FIXTURE_SAMPLE_RATE } from './audio-fixtures.js';

const execFileAsync = promisify(execFile);

/** Sentences without commas or other inner pauses that a VAD could rightly split at. */
export const PLAIN_SENTENCES = [
  'The patient reports chest pain radiating to the left arm.',
  'Blood pressure is one hundred forty over ninety.',
  'Start metoprolol twenty five milligrams twice daily.',
  'Lungs are clear to auscultation bilaterally.',
  'Follow up with cardiology in two weeks for a stress test.',
] as const;

/** -46 dBFS: espeak's own silence is exact zeros or far below this; its quietest consonants are above. */
export const TRUTH_LEVEL = 0.005;

export interface SpeechSpan {
  /** Seconds. */
  start: number;
  end: number;
}

export interface SpeechWithSilences {
  pcm: Float32Array;
  /** Where each sentence's audible samples begin and end, in order. */
  truth: SpeechSpan[];
  seconds: number;
}

export interface SpeechLayout {
  /** Indexes into PLAIN_SENTENCES, in order. */
  sentences: readonly number[];
  /** Seconds of silence before each sentence; the last entry is the silence after the last sentence. */
  silences: readonly number[];
  voice?: string;
}

export async function speechWithSilences(layout: SpeechLayout): Promise<SpeechWithSilences> {
  const { sentences, silences, voice = 'en-us' } = layout;
  if (silences.length !== sentences.length + 1) throw new Error('one silence before each sentence and one after the last');
  const spoken = await Promise.all(sentences.map((index) => sentencePcm(index, voice)));
  const silenceSamples = silences.map((s) => Math.round(s * FIXTURE_SAMPLE_RATE));
  const total = silenceSamples.reduce((a, b) => a + b, 0) + spoken.reduce((a, s) => a + s.length, 0);
  const pcm = new Float32Array(total);
  const truth: SpeechSpan[] = [];
  let at = 0;
  spoken.forEach((samples, i) => {
    at += silenceSamples[i];
    pcm.set(samples, at);
    const { first, last } = audibleRange(samples);
    truth.push({ start: (at + first) / FIXTURE_SAMPLE_RATE, end: (at + last + 1) / FIXTURE_SAMPLE_RATE });
    at += samples.length;
  });
  return { pcm, truth, seconds: total / FIXTURE_SAMPLE_RATE };
}

function audibleRange(samples: Float32Array): { first: number; last: number } {
  let first = 0;
  while (first < samples.length && Math.abs(samples[first]) < TRUTH_LEVEL) first++;
  let last = samples.length - 1;
  while (last > first && Math.abs(samples[last]) < TRUTH_LEVEL) last--;
  if (first >= samples.length) throw new Error('espeak produced silence');
  return { first, last };
}

/** One sentence as 16 kHz mono float samples. */
async function sentencePcm(index: number, voice: string): Promise<Float32Array> {
  const text = PLAIN_SENTENCES[index];
  if (text === undefined) throw new RangeError(`no sentence ${index}`);
  const path = await cachedFile(`plain-sentence-${voice}-${index}.s16le`, async (tmp) => {
    const wav = `${tmp}.espeak.wav`;
    try {
      await execFileAsync('espeak-ng', ['-v', voice, '-s', '160', '-w', wav, text]);
      await execFileAsync('ffmpeg', [
        '-nostdin',
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-i',
        wav,
        '-ac',
        '1',
        '-ar',
        String(FIXTURE_SAMPLE_RATE),
        '-f',
        's16le',
        tmp,
      ]);
    } finally {
      await rm(wav, { force: true });
    }
  });
  return s16ToFloat(await readFile(path));
}

/**
 * `seconds` of a sox-synthesised signal at 16 kHz mono, e.g. ['whitenoise', 'vol', '0.1'] or
 * ['sine', '440']. sox runs in repeatable mode (-R), so noise is the same on every machine run.
 */
export async function soxSignal(name: string, seconds: number, synth: readonly string[], effects: readonly string[] = []): Promise<Float32Array> {
  const path = await cachedFile(`sox-${name}-${seconds}s.s16le`, async (tmp) => {
    await execFileAsync('sox', [
      '-R',
      '-n',
      '-r',
      String(FIXTURE_SAMPLE_RATE),
      '-c',
      '1',
      '-b',
      '16',
      '-e',
      'signed-integer',
      '-t',
      's16',
      tmp,
      'synth',
      String(seconds),
      ...synth,
      ...effects,
    ]);
  });
  return s16ToFloat(await readFile(path));
}

/** 16-bit mono WAV bytes of float samples (for tools that read files, such as whisper-cli). */
export function wavBytes(pcm: Float32Array): Buffer {
  const data = Buffer.alloc(pcm.length * 2);
  for (let i = 0; i < pcm.length; i++) data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(pcm[i] * 32768))), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(FIXTURE_SAMPLE_RATE, 24);
  header.writeUInt32LE(FIXTURE_SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

function s16ToFloat(bytes: Buffer): Float32Array {
  const out = new Float32Array(Math.floor(bytes.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(i * 2) / 32768;
  return out;
}
