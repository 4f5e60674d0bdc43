// The speech stage: where in the audio someone speaks. The VAD (Silero, through the engine) decides;
// with the VAD off (`--no-vad`, for comparison) the whole audio counts as one region of speech.
// This is the codebase's one notion of speech: language probes, chunk cuts and the hallucination
// guard all read these regions.
import type { VadParams } from '../engine/vad-params.js';
import type { SpeechRegion } from './speech-regions.js';

/**
 * Speech regions of 16 kHz mono audio, in seconds from its start, ordered. `params`: the request's own
 * VAD parameters (OpenAI's server_vad), over the engine's defaults.
 */
export type DetectSpeech = (pcm: Float32Array, signal?: AbortSignal, params?: Partial<VadParams> | null) => Promise<SpeechRegion[]>;

/** `detect` null: no VAD, all of the audio is speech. */
export async function findSpeech(
  pcm: Float32Array,
  sampleRate: number,
  detect: DetectSpeech | null,
  signal?: AbortSignal,
  params?: Partial<VadParams> | null,
): Promise<SpeechRegion[]> {
  const duration = pcm.length / sampleRate;
  if (pcm.length === 0) return [];
  if (!detect) return [{ start: 0, end: duration }];
  const regions = await detect(pcm, signal, params);
  // The VAD pads regions: keep them inside the audio and in order, and drop what the clamp emptied.
  return regions
    .map((r) => ({ start: Math.max(0, r.start), end: Math.min(duration, r.end) }))
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start);
}
