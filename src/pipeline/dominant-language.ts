// The dominant language of a recording whose request omitted `language` (contract, behavioural rule
// 2): the engine's detection on the first speech-bearing 30-second window, restricted to the supported
// families. Unlike `language=auto`, an unsupported top answer is not refused: the caller asked for no
// language in particular, so the likeliest language the service supports is the best answer there is.
import type { Engine } from '../engine/engine.js';
import { LANGUAGE_FAMILIES, type LanguageFamily } from './languages.js';
import type { LanguageDetectionBlock } from './run-transcription.js';
import { firstSpeechWindow } from './speech-window.js';

export interface DominantLanguage {
  family: LanguageFamily;
  /** Which window it was detected from (0 = the first 30 seconds). */
  windowIndex: number;
  detection: LanguageDetectionBlock;
}

/** The supported family the detection found most probable (ties go to the earlier family in the list). */
export function mostProbableFamily(probabilities: Record<string, number>): LanguageFamily {
  return LANGUAGE_FAMILIES.reduce((best, family) => ((probabilities[family] ?? 0) > (probabilities[best] ?? 0) ? family : best));
}

/**
 * Detects from `pcm` (the recording's opening, 16 kHz mono, at least the first four windows when the
 * recording is that long). Null when no window bears speech: nothing is detected then, never guessed.
 */
export async function detectDominantLanguage(
  engine: Engine,
  pcm: Float32Array,
  sampleRate: number,
  signal?: AbortSignal,
): Promise<DominantLanguage | null> {
  const window = firstSpeechWindow(pcm, sampleRate);
  if (!window) return null;
  // A copy of just the window: a view would carry its whole underlying buffer to the worker thread.
  const detected = await engine.detectLanguage(window.pcm.slice(), {}, { signal });
  const family = mostProbableFamily(detected.probabilities);
  return {
    family,
    windowIndex: window.index,
    // Shaped like the `language=auto` block: every family a candidate, one run in one language.
    detection: { mode: 'per_utterance', candidates: [...LANGUAGE_FAMILIES], languages: [family], utterances: 1, fallbacks: 0 },
  };
}
