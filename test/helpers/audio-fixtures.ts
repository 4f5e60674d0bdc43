/**
 * Test audio, generated on demand with espeak-ng and ffmpeg into test/.cache/audio/ (git-ignored)
 * and cached by name. Several test processes may ask for the same file at once, so every file is
 * written under a unique temporary name and renamed into place: readers see a whole file or none.
 */
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { access, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const AUDIO_CACHE_DIR = join(REPO_ROOT, 'test', '.cache', 'audio');
const JFK_MP3 = join(REPO_ROOT, 'deps', 'whisper.cpp', 'samples', 'jfk.mp3');

/** All speech fixtures are 16 kHz mono s16 WAV: what whisper-cli reads and what the engine wants. */
export const FIXTURE_SAMPLE_RATE = 16_000;

/** What the fixture speech says (the log audit looks for it). */
export const MEDICAL_SENTENCES = [
  'The patient reports chest pain radiating to the left arm.',
  'Blood pressure is one hundred forty over ninety.',
  'Start metoprolol twenty five milligrams twice daily.',
  'She denies shortness of breath, fever or chills.',
  'Heart rate is eighty eight and regular, oxygen saturation ninety six percent on room air.',
  'History of type two diabetes mellitus, managed with metformin five hundred milligrams.',
  'The electrocardiogram shows sinus rhythm without acute ST elevation.',
  'Troponin is pending; repeat the level in three hours.',
  'Lungs are clear to auscultation bilaterally.',
  'Allergic to penicillin, which causes hives.',
  'Plan: admit to telemetry, aspirin three hundred twenty five milligrams now.',
  'Follow up with cardiology in two weeks for a stress test.',
  'The abdomen is soft and non tender, with normal bowel sounds.',
  'Continue atorvastatin forty milligrams at bedtime.',
];

export interface SpeechOptions {
  /** espeak-ng voice, e.g. 'en-us' (default), 'en-gb', 'en-us+f3'. */
  voice?: string;
  /** Chooses the sentence order and the pauses between sentences (default 1). */
  seed?: number;
}

/**
 * Medical-sounding English speech, exactly `seconds` long (rounded to a sample): sentences in a
 * seeded order separated by short pauses, repeated as needed and cut at the end.
 */
export function speechWav(seconds: number, options: SpeechOptions = {}): Promise<string> {
  const { voice = 'en-us', seed = 1 } = options;
  return cachedFile(`speech-${voice}-seed${seed}-${seconds}s.wav`, async (tmp) => {
    const samples = await speechSamples(Math.round(seconds * FIXTURE_SAMPLE_RATE), voice, seed);
    await writeFile(tmp, wavFileBytes(samples));
  });
}

/**
 * Speech with no pause a realtime turn could end on: the sentences of `speechWav` with espeak-ng's
 * leading and trailing silence trimmed, laid end to end. What a test needs when a turn must still be
 * under way however late its partials come.
 */
export function unpausedSpeechWav(seconds: number, options: SpeechOptions = {}): Promise<string> {
  const { voice = 'en-us', seed = 1 } = options;
  return cachedFile(`unpaused-speech-${voice}-seed${seed}-${seconds}s.wav`, async (tmp) => {
    const sentences = await Promise.all(MEDICAL_SENTENCES.map((_, index) => sentenceSamples(index, voice).then(trimmedSilence)));
    const random = mulberry32(seed);
    const total = Math.round(seconds * FIXTURE_SAMPLE_RATE);
    const samples = new Int16Array(total);
    for (let position = 0; position < total;) {
      for (const index of shuffled(sentences.length, random)) {
        if (position >= total) break;
        samples.set(sentences[index].subarray(0, total - position), position);
        position += sentences[index].length;
      }
    }
    await writeFile(tmp, wavFileBytes(samples));
  });
}

/**
 * `seconds` of audio whose first half is speech (as `speechWav`) and whose second half is digital
 * silence (all-zero samples): the case a VAD should make cheap.
 */
export function halfSilenceWav(seconds: number, options: SpeechOptions = {}): Promise<string> {
  const { voice = 'en-us', seed = 1 } = options;
  return cachedFile(`half-silence-${voice}-seed${seed}-${seconds}s.wav`, async (tmp) => {
    const total = Math.round(seconds * FIXTURE_SAMPLE_RATE);
    const samples = new Int16Array(total);
    samples.set(await speechSamples(Math.floor(total / 2), voice, seed));
    await writeFile(tmp, wavFileBytes(samples));
  });
}

/**
 * `pieces` stretches of speech of `speechSeconds` each (as `speechWav`, a different sentence order per
 * piece), each followed by `silenceSeconds` of digital silence: speech interleaved with silence, the
 * audio of the silence benchmark. Speech piece i starts at i * (speechSeconds + silenceSeconds).
 */
export function interleavedSilenceWav(pieces: number, speechSeconds: number, silenceSeconds: number, options: SpeechOptions = {}): Promise<string> {
  const { voice = 'en-us', seed = 1 } = options;
  return cachedFile(`interleaved-${voice}-seed${seed}-${pieces}x${speechSeconds}s+${silenceSeconds}s.wav`, async (tmp) => {
    const piece = Math.round(speechSeconds * FIXTURE_SAMPLE_RATE);
    const stride = piece + Math.round(silenceSeconds * FIXTURE_SAMPLE_RATE);
    const samples = new Int16Array(stride * pieces);
    for (let i = 0; i < pieces; i++) samples.set(await speechSamples(piece, voice, seed + i), i * stride);
    await writeFile(tmp, wavFileBytes(samples));
  });
}

/** The JFK sample shipped with whisper.cpp's source, as 16 kHz mono s16 WAV. */
export async function jfkWav(): Promise<string> {
  await access(JFK_MP3).catch(() => {
    throw new Error(`${JFK_MP3} is missing: fetch the whisper.cpp source first (scripts/whisper-source.mjs)`);
  });
  return cachedFile('jfk.wav', (tmp) => ffmpeg(['-i', JFK_MP3, '-ac', '1', '-ar', String(FIXTURE_SAMPLE_RATE), '-c:a', 'pcm_s16le', '-f', 'wav', tmp]));
}

/**
 * The formats fixtures can be encoded to: one per contract container, plus variants that matter.
 * 'mp4' carries a small video track before the audio (a phone video); 'm4a' keeps ffmpeg's default
 * layout with the index (moov) at the end; 'webm-live' is written to a pipe like a browser's
 * MediaRecorder output, so it has no duration in its header; 'opus' is Ogg Opus.
 */
export type FixtureFormat = 'wav' | 'mp3' | 'm4a' | 'mp4' | 'webm' | 'webm-live' | 'ogg' | 'opus' | 'flac' | 'aac';

export const FIXTURE_FORMATS: readonly FixtureFormat[] = ['wav', 'mp3', 'm4a', 'mp4', 'webm', 'webm-live', 'ogg', 'opus', 'flac', 'aac'];

// Encoded at 44.1 kHz stereo (Opus: 48 kHz), as real uploads usually are, so that decoding also
// exercises resampling and downmixing.
const STEREO_44K = ['-ac', '2', '-ar', '44100'];
const ENCODINGS: Readonly<Record<FixtureFormat, { extension: string; args: string[] }>> = {
  wav: { extension: 'wav', args: [...STEREO_44K, '-c:a', 'pcm_s16le', '-f', 'wav'] },
  mp3: { extension: 'mp3', args: [...STEREO_44K, '-c:a', 'libmp3lame', '-b:a', '96k', '-f', 'mp3'] },
  m4a: { extension: 'm4a', args: [...STEREO_44K, '-c:a', 'aac', '-b:a', '96k', '-f', 'ipod'] },
  mp4: { extension: 'mp4', args: [...STEREO_44K, '-c:a', 'aac', '-b:a', '96k', '-c:v', 'mpeg4', '-shortest', '-f', 'mp4'] },
  webm: { extension: 'webm', args: ['-ac', '2', '-ar', '48000', '-c:a', 'libopus', '-b:a', '48k', '-f', 'webm'] },
  'webm-live': { extension: 'webm', args: ['-ac', '2', '-ar', '48000', '-c:a', 'libopus', '-b:a', '48k', '-f', 'webm'] },
  ogg: { extension: 'ogg', args: [...STEREO_44K, '-c:a', 'libvorbis', '-q:a', '3', '-f', 'ogg'] },
  opus: { extension: 'opus', args: ['-ac', '2', '-ar', '48000', '-c:a', 'libopus', '-b:a', '48k', '-f', 'ogg'] },
  flac: { extension: 'flac', args: [...STEREO_44K, '-c:a', 'flac', '-f', 'flac'] },
  aac: { extension: 'aac', args: [...STEREO_44K, '-c:a', 'aac', '-b:a', '96k', '-f', 'adts'] },
};

/** `srcWav` encoded as `format` (cached next to it). */
export function encodeAs(srcWav: string, format: FixtureFormat): Promise<string> {
  const { extension, args } = ENCODINGS[format];
  const stem = basename(srcWav, extname(srcWav));
  return cachedFile(`${stem}-${format}.${extension}`, async (tmp) => {
    if (format === 'mp4') {
      // Video first, so that the audio is not stream 0 and `-map 0:a:0` has to find it.
      await ffmpeg(['-f', 'lavfi', '-i', 'color=c=navy:s=64x64:r=5', '-i', srcWav, '-map', '0:v', '-map', '1:a', ...args, tmp]);
    } else if (format === 'webm-live') {
      await ffmpegToPipe(['-i', srcWav, ...args, 'pipe:1'], tmp);
    } else {
      await ffmpeg(['-i', srcWav, ...args, tmp]);
    }
  });
}

/** The first `fraction` of a file's bytes, as a file with the same extension. */
export function truncatedCopy(src: string, fraction: number): Promise<string> {
  const stem = basename(src, extname(src));
  return cachedFile(`${stem}-first${Math.round(fraction * 100)}pct${extname(src)}`, async (tmp) => {
    const bytes = await readFile(src);
    await writeFile(tmp, bytes.subarray(0, Math.floor(bytes.length * fraction)));
  });
}

// ---- uploads that are not (usable) audio ----

/** A real 16x16 PNG image. */
export function pngImage(): Promise<string> {
  return cachedFile('image.png', (tmp) => ffmpeg(['-f', 'lavfi', '-i', 'color=c=red:s=16x16', '-frames:v', '1', '-c:v', 'png', '-f', 'image2', tmp]));
}

/** An MP4 with a video track and no audio track at all. */
export function videoOnlyMp4(): Promise<string> {
  return cachedFile('video-only.mp4', (tmp) => ffmpeg(['-f', 'lavfi', '-i', 'color=c=navy:s=64x64:r=5', '-t', '2', '-c:v', 'mpeg4', '-f', 'mp4', tmp]));
}

/** `size` seeded pseudo-random bytes. */
export function randomBytesFile(size: number, seed = 1): Promise<string> {
  return cachedFile(`random-${size}-seed${seed}.bin`, async (tmp) => {
    const random = mulberry32(seed);
    await writeFile(
      tmp,
      Uint8Array.from({ length: size }, () => Math.floor(random() * 256)),
    );
  });
}

// ---- speech synthesis ----

async function speechSamples(total: number, voice: string, seed: number): Promise<Int16Array> {
  const sentences = await Promise.all(MEDICAL_SENTENCES.map((_, index) => sentenceSamples(index, voice)));
  const random = mulberry32(seed);
  const out = new Int16Array(total);
  let position = 0;
  while (position < total) {
    for (const index of shuffled(sentences.length, random)) {
      if (position >= total) break;
      const sentence = sentences[index];
      out.set(sentence.subarray(0, total - position), position);
      const pauseSeconds = 0.25 + 0.35 * random();
      position += sentence.length + Math.round(pauseSeconds * FIXTURE_SAMPLE_RATE);
    }
  }
  return out;
}

/** `samples` without the quiet before its first and after its last audible sample (about -36 dBFS). */
function trimmedSilence(samples: Int16Array): Int16Array {
  const audible = (x: number) => Math.abs(x) > 512;
  const first = samples.findIndex(audible);
  if (first < 0) return samples.subarray(0, 0);
  let last = samples.length - 1;
  while (!audible(samples[last])) last--;
  return samples.subarray(first, last + 1);
}

async function sentenceSamples(index: number, voice: string): Promise<Int16Array> {
  return spokenSentence(index, { voice });
}

/** How espeak-ng speaks: a voice (with variant, e.g. 'en-us+f3'), pitch 0-99 and words per minute. */
export interface SpeakerVoice {
  voice: string;
  pitch?: number;
  speed?: number;
}

/** MEDICAL_SENTENCES[index] spoken in `speaker`'s voice, as 16 kHz mono samples (cached). */
export async function spokenSentence(index: number, speaker: SpeakerVoice): Promise<Int16Array> {
  const { voice, pitch = 50, speed = 160 } = speaker;
  // The default voice keeps its first cache names.
  const tuning = pitch === 50 && speed === 160 ? '' : `-p${pitch}-s${speed}`;
  const path = await cachedFile(`sentence-${voice}${tuning}-${index}.s16le`, async (tmp) => {
    const spoken = `${tmp}.espeak.wav`;
    try {
      await execFileAsync('espeak-ng', ['-v', voice, '-p', String(pitch), '-s', String(speed), '-w', spoken, MEDICAL_SENTENCES[index]]);
      await ffmpeg(['-i', spoken, '-ac', '1', '-ar', String(FIXTURE_SAMPLE_RATE), '-f', 's16le', tmp]);
    } finally {
      await rm(spoken, { force: true });
    }
  });
  const bytes = await readFile(path);
  return new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
}

export function wavFileBytes(samples: Int16Array): Buffer {
  const dataBytes = samples.length * 2;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(FIXTURE_SAMPLE_RATE, 24);
  header.writeUInt32LE(FIXTURE_SAMPLE_RATE * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  const data = Buffer.from(samples.buffer, samples.byteOffset, dataBytes);
  return Buffer.concat([header, data]);
}

/** Small deterministic PRNG, so that a seed always gives the same fixture. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled(length: number, random: () => number): number[] {
  const order = Array.from({ length }, (_, i) => i);
  for (let i = length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

// ---- ffmpeg and the cache ----

// -bitexact and no metadata keep encoder version strings out, so fixtures are reproducible.
const FFMPEG_FIXTURE_ARGS = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y'];
const FFMPEG_OUTPUT_ARGS = ['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact'];

async function ffmpeg(args: string[]): Promise<void> {
  const output = args[args.length - 1];
  await execFileAsync('ffmpeg', [...FFMPEG_FIXTURE_ARGS, ...args.slice(0, -1), ...FFMPEG_OUTPUT_ARGS, output]);
}

/** Runs ffmpeg with its output going to a pipe (non-seekable), captured into `file`. */
async function ffmpegToPipe(args: string[], file: string): Promise<void> {
  const handle = await open(file, 'w');
  try {
    await new Promise<void>((resolvePromise, rejectPromise) => {
      const child = spawn('ffmpeg', [...FFMPEG_FIXTURE_ARGS, ...args.slice(0, -1), ...FFMPEG_OUTPUT_ARGS, args[args.length - 1]], {
        stdio: ['ignore', handle.fd, 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', rejectPromise);
      child.on('close', (code) => (code === 0 ? resolvePromise() : rejectPromise(new Error(`ffmpeg failed: ${stderr}`))));
    });
  } finally {
    await handle.close();
  }
}

const inProcess = new Map<string, Promise<string>>();

/**
 * The cached file `name`, produced by `produce(tmpPath)` when missing. The temporary name keeps the
 * extension last so tools that look at it still see it.
 */
export function cachedFile(name: string, produce: (tmpPath: string) => Promise<void>): Promise<string> {
  const existing = inProcess.get(name);
  if (existing) return existing;
  const pending = (async () => {
    const finalPath = join(AUDIO_CACHE_DIR, name);
    if (await isNonEmptyFile(finalPath)) return finalPath;
    await mkdir(AUDIO_CACHE_DIR, { recursive: true });
    const tmp = join(AUDIO_CACHE_DIR, `.tmp-${process.pid}-${randomUUID()}-${name}`);
    try {
      await produce(tmp);
      await rename(tmp, finalPath);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
    return finalPath;
  })();
  inProcess.set(name, pending);
  pending.catch(() => inProcess.delete(name));
  return pending;
}

async function isNonEmptyFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).size > 0;
  } catch {
    return false;
  }
}
