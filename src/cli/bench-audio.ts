// The recordings `svc-stt bench` transcribes: the user's files (--audio), else speech it makes itself.
import { existsSync } from 'node:fs';

import { AudioError, decodeAudio } from '../audio/index.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import { syntheticSpeech } from './synthetic-speech.js';
import { UsageError } from './usage-error.js';

export interface BenchClip {
  /** The file as given, or 'generated speech'. */
  name: string;
  pcm: Float32Array;
}

/** The same limit as `svc-stt transcribe` (and the service's default for jobs). */
const MAX_CLIP_SECONDS = 7200;

export async function benchClips(files: readonly string[], generatedSeconds: number): Promise<BenchClip[]> {
  if (files.length === 0) return [{ name: 'generated speech', pcm: await syntheticSpeech(generatedSeconds) }];
  // Every file is checked before any is decoded: a typo in the last one should not wait for the first.
  for (const file of files) if (!existsSync(file)) throw new UsageError(`--audio: no file ${file}`);
  const clips: BenchClip[] = [];
  for (const file of files) clips.push({ name: file, pcm: await decodedFile(file) });
  return clips;
}

export function clipSeconds(clip: BenchClip): number {
  return clip.pcm.length / SAMPLE_RATE;
}

async function decodedFile(file: string): Promise<Float32Array> {
  let pcm: Float32Array;
  try {
    pcm = await decodeAudio(file, { maxSeconds: MAX_CLIP_SECONDS, timeoutMs: 10 * 60_000 });
  } catch (error) {
    // Audio errors carry fixed messages (they may reach API clients); here the user wants the file's name.
    if (error instanceof AudioError) throw new Error(`${file}: ${error.message}`, { cause: error });
    throw error;
  }
  if (pcm.length === 0) throw new Error(`${file}: the file holds no audio`);
  return pcm;
}
