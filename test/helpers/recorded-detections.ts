// Recorded language detections for the language stage's tests (test/pipeline/language-*.test.ts):
// a detector that answers from a recording of results instead of the engine, PCM whose every sample
// holds its own time (so the detector knows which speech it was given), and whisper-shaped
// probability maps over all of whisper's languages.
import type { DetectLanguage } from '../../src/pipeline/language-stage.js';

export const RECORDED_RATE = 16_000;

/** Whisper's language codes, in its own order (whisper_lang_str of ids 0 to whisper_lang_max_id, v1.9.1). */
export const WHISPER_LANGUAGES = [
  'en', 'zh', 'de', 'es', 'ru', 'ko', 'fr', 'ja', 'pt', 'tr', 'pl', 'ca', 'nl', 'ar', 'sv', 'it', 'id', 'hi', 'fi', 'vi',
  'he', 'uk', 'el', 'ms', 'cs', 'ro', 'da', 'hu', 'ta', 'no', 'th', 'ur', 'hr', 'bg', 'lt', 'la', 'mi', 'ml', 'cy', 'sk',
  'te', 'fa', 'lv', 'bn', 'sr', 'az', 'sl', 'kn', 'et', 'mk', 'br', 'eu', 'is', 'hy', 'ne', 'mn', 'bs', 'kk', 'sq', 'sw',
  'gl', 'mr', 'pa', 'si', 'km', 'sn', 'yo', 'so', 'af', 'oc', 'ka', 'be', 'tg', 'sd', 'gu', 'am', 'yi', 'lo', 'uz', 'fo',
  'ht', 'ps', 'tk', 'nn', 'mt', 'sa', 'lb', 'my', 'bo', 'tl', 'mg', 'as', 'tt', 'haw', 'ln', 'ha', 'ba', 'jw', 'su', 'yue',
]; // prettier-ignore

/**
 * A probability map shaped like whisper's: the given head (the languages the model leans to), and the
 * rest of the mass over every other language, falling off along whisper's order as a softmax tail
 * does. Sums to 1 over all of whisper's languages.
 */
export function whisperDetection(head: Record<string, number>): Record<string, number> {
  const headMass = Object.values(head).reduce((a, b) => a + b, 0);
  if (headMass > 1) throw new RangeError('the head holds more than all the probability');
  const tail = WHISPER_LANGUAGES.filter((l) => !(l in head));
  const weights = tail.map((_, i) => 0.85 ** i);
  const total = weights.reduce((a, b) => a + b, 0);
  const probabilities: Record<string, number> = { ...head };
  tail.forEach((l, i) => (probabilities[l] = ((1 - headMass) * weights[i]) / total));
  return probabilities;
}

/** `seconds` of PCM whose every sample holds its own time in seconds. */
export function timedPcm(seconds: number): Float32Array {
  return Float32Array.from({ length: Math.round(seconds * RECORDED_RATE) }, (_, i) => i / RECORDED_RATE);
}

/**
 * A detector that answers from a recording of results, by where the speech it is given starts in the
 * recording (every sample of `pcm` holds its own time) and how long it is.
 */
export function recordedDetector(byStart: Array<[startSeconds: number, probabilities: Record<string, number>]>) {
  const calls: Array<[start: number, seconds: number]> = [];
  const detect: DetectLanguage = async (packed) => {
    const start = Math.round(packed[0] * 10) / 10;
    calls.push([start, Math.round((packed.length / RECORDED_RATE) * 10) / 10]);
    const found = byStart.find(([s]) => Math.abs(s - start) < 0.05);
    if (!found) throw new Error(`no recorded detection for speech starting at ${start} s`);
    return found[1];
  };
  return { detect, calls };
}
