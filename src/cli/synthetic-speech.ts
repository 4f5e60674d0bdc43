// Speech for `svc-stt bench` when it is given no --audio: espeak-ng (packaged by Debian, Ubuntu, Fedora,
// Alpine and Homebrew) reads clinical sentences into a WAV file in a temporary folder, and ffmpeg (which
// decoding needs anyway) turns it into 16 kHz mono samples. Synthetic speech is enough to measure speed:
// whisper's cost follows the length of the audio and the tokens decoded, not whose voice it is.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { decodeAudio } from '../audio/index.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import { UsageError } from './usage-error.js';

const execFileAsync = promisify(execFile);

const SPOKEN_TEXT = [
  'The patient is a sixty two year old man seen today for follow up of hypertension.',
  'He reports occasional headaches in the morning and no chest pain.',
  'Blood pressure is one hundred fifty two over ninety four, pulse seventy eight and regular.',
  'Current medications are lisinopril ten milligrams daily and atorvastatin twenty milligrams at night.',
  'On examination the lungs are clear and there is mild swelling of both ankles.',
  'Increase lisinopril to twenty milligrams daily and check kidney function in two weeks.',
  'Advise a low salt diet, regular walking, and home blood pressure readings twice a day.',
  'Return to clinic in one month, sooner if the headaches get worse.',
];

/** espeak-ng's default rate is 175 words per minute; this one is a little slower, like dictation. */
const WORDS_PER_MINUTE = 160;
const ESPEAK_TIMEOUT_MS = 120_000;

export const ESPEAK_MISSING_MESSAGE =
  'no --audio given, and espeak-ng, which makes the benchmark speech, is not installed: ' +
  'install it (apt-get install espeak-ng, dnf install espeak-ng, apk add espeak-ng, brew install espeak-ng) or pass --audio FILE';

/** `seconds` of spoken English as 16 kHz mono samples, repeating the speech when it runs short. */
export async function syntheticSpeech(seconds: number): Promise<Float32Array> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-stt-bench-'));
  try {
    const textFile = join(dir, 'speech.txt');
    const wavFile = join(dir, 'speech.wav');
    await writeFile(textFile, textLasting(seconds));
    await speak(textFile, wavFile);
    const spoken = await decodeAudio(wavFile, { maxSeconds: seconds * 2 + 60, timeoutMs: ESPEAK_TIMEOUT_MS });
    return exactLength(spoken, Math.round(seconds * SAMPLE_RATE));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Enough sentences to last `seconds` at the speaking rate, with a margin for the cut. */
function textLasting(seconds: number): string {
  const wordsNeeded = (seconds * WORDS_PER_MINUTE) / 60 + 20;
  const sentences: string[] = [];
  let words = 0;
  for (let i = 0; words < wordsNeeded; i++) {
    const sentence = SPOKEN_TEXT[i % SPOKEN_TEXT.length];
    sentences.push(sentence);
    words += sentence.split(' ').length;
  }
  return sentences.join('\n');
}

async function speak(textFile: string, wavFile: string): Promise<void> {
  try {
    await execFileAsync('espeak-ng', ['-v', 'en-us', '-s', String(WORDS_PER_MINUTE), '-f', textFile, '-w', wavFile], { timeout: ESPEAK_TIMEOUT_MS });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(ESPEAK_MISSING_MESSAGE);
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new Error(`espeak-ng failed${stderr ? `: ${stderr}` : ''}`, { cause: error });
  }
}

function exactLength(samples: Float32Array, length: number): Float32Array {
  if (samples.length === 0) throw new Error('espeak-ng produced no audio');
  const out = new Float32Array(length);
  for (let offset = 0; offset < length; offset += samples.length) out.set(samples.subarray(0, length - offset), offset);
  return out;
}
