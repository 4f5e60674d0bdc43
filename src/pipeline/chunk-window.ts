// A long recording's next chunk, taken from a decoded window that starts where the previous chunk
// ended: the window reaches past the chunk's target length by the range a cut may move into
// (chunk-cut.ts), its speech is found, the chunk ends at the cut, and the rest of the window is left
// for the next chunk (which decodes it again).
import type { VadParams } from '../engine/vad-params.js';
import { chooseCut, cutSearchSeconds } from './chunk-cut.js';
import type { SpeechRegion } from './speech-regions.js';
import { type DetectSpeech, findSpeech } from './speech-stage.js';

/** Seconds to decode for a chunk of `target` seconds: the target and the range its cut may move into. */
export function chunkWindowSeconds(target: number): number {
  return target + cutSearchSeconds(target);
}

export interface WindowCut {
  target: number;
  /** The window holds the rest of the recording: everything is taken. */
  reachedEnd: boolean;
  sampleRate: number;
  detectSpeech: DetectSpeech | null;
  /** The request's own VAD parameters; null or absent: the defaults. */
  vad?: Partial<VadParams> | null;
  signal?: AbortSignal;
}

export interface WindowChunk {
  /** The window's audio up to the cut. */
  pcm: Float32Array;
  seconds: number;
  /** The speech found in the chunk (clipped at the cut), so that transcription need not look again. */
  regions: SpeechRegion[];
  /** The chunk ends the recording. */
  last: boolean;
}

export async function cutWindow(window: Float32Array, options: WindowCut): Promise<WindowChunk> {
  const { sampleRate } = options;
  const windowSeconds = window.length / sampleRate;
  const regions = await findSpeech(window, sampleRate, options.detectSpeech, options.signal, options.vad);
  const cut = chooseCut(regions, windowSeconds, options.target, options.reachedEnd);
  const pcm = window.subarray(0, Math.min(window.length, Math.round(cut * sampleRate)));
  const seconds = pcm.length / sampleRate;
  return { pcm, seconds, regions: clipRegions(regions, seconds), last: options.reachedEnd && cut >= windowSeconds };
}

/** Regions clipped to the first `seconds` of the window (the chunk before its cut). */
function clipRegions(regions: SpeechRegion[], seconds: number): SpeechRegion[] {
  return regions.filter((r) => r.start < seconds).map((r) => ({ start: r.start, end: Math.min(r.end, seconds) }));
}
