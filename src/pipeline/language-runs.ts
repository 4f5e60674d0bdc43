// Per-utterance language (contract, behavioural rule 1): each utterance gets the language detected on
// it, utterances too short to judge inherit from their neighbours, and consecutive utterances of one
// language collapse into a run. Runs are what the recogniser transcribes, each in its language.
// Pure decisions over detection results, so they are tested on recorded detections.
import type { LanguageFamily } from '../domain/language-families.js';
import type { SpeechRegion } from './speech-regions.js';

/**
 * Utterances shorter than this are not detected on their own: a second of audio is too little for a
 * reliable answer (a cough, "yes", a name), so they take the language of the speech around them.
 */
export const MIN_DETECTED_UTTERANCE_SECONDS = 1;

/**
 * A pause at least this long closes an utterance; shorter ones (between sentences, for breath) do not.
 * The VAD splits speech at every 100 ms pause, far finer than a change of speaker or language.
 */
export const UTTERANCE_PAUSE_SECONDS = 0.8;

/**
 * Speech an utterance's language is judged on: its opening seconds. Whisper identifies a language
 * from a few seconds as well as from thirty, and the encoder's cost shrinks with the audio given
 * (engine.detectLanguage's audioSeconds), which keeps `auto` near the cost of a given language.
 */
export const DETECTION_SPEECH_SECONDS = 4;

/** An utterance: VAD regions separated by pauses shorter than UTTERANCE_PAUSE_SECONDS. */
export interface Utterance {
  regions: SpeechRegion[];
  /** Seconds of speech (pauses excluded). */
  speechSeconds: number;
}

/** What detection said of one utterance: the probability of each language (whisper's codes). */
export type LanguageProbabilities = Record<string, number>;

export interface LanguageRun {
  language: LanguageFamily;
  regions: SpeechRegion[];
}

/**
 * The candidate the probabilities favour. With hints the caller vouches for the candidates, so the
 * likeliest of them wins. Without hints the likeliest language of all must be a candidate: null when
 * it is not (the caller refuses; there is never a silent fallback to English).
 */
export function chooseLanguage(
  probabilities: LanguageProbabilities,
  candidates: readonly LanguageFamily[],
  restrictToCandidates: boolean,
): LanguageFamily | null {
  if (restrictToCandidates) {
    return candidates.reduce((best, c) => ((probabilities[c] ?? 0) > (probabilities[best] ?? 0) ? c : best));
  }
  const top = topLanguage(probabilities);
  return top !== null && (candidates as readonly string[]).includes(top) ? (top as LanguageFamily) : null;
}

/** The likeliest language of all (whisper's code), null for an empty result. */
export function topLanguage(probabilities: LanguageProbabilities): string | null {
  let top: string | null = null;
  for (const [language, p] of Object.entries(probabilities)) if (top === null || p > (probabilities[top] ?? 0)) top = language;
  return top;
}

export function utterancesOf(regions: readonly SpeechRegion[]): Utterance[] {
  const utterances: Utterance[] = [];
  let previousEnd = Number.NEGATIVE_INFINITY;
  for (const region of regions) {
    const last = utterances[utterances.length - 1];
    if (last && region.start - previousEnd < UTTERANCE_PAUSE_SECONDS) last.regions.push(region);
    else utterances.push({ regions: [region], speechSeconds: 0 });
    utterances[utterances.length - 1].speechSeconds += region.end - region.start;
    previousEnd = region.end;
  }
  return utterances;
}

export function isDetectable(utterance: Utterance): boolean {
  return utterance.speechSeconds >= MIN_DETECTED_UTTERANCE_SECONDS;
}

/**
 * Languages for every utterance from the detected ones (`null` where an utterance was not detected):
 * an undetected utterance takes the language of the nearest detected utterance before it, else the
 * first one after it. Throws when nothing was detected at all (the caller detects on all the speech).
 */
export function fillUndetected(detected: ReadonlyArray<LanguageFamily | null>): LanguageFamily[] {
  const first = detected.find((l) => l !== null);
  if (first === undefined || first === null) throw new RangeError('at least one utterance must be detected');
  let previous: LanguageFamily = first;
  return detected.map((language) => {
    if (language !== null) previous = language;
    return previous;
  });
}

/** Consecutive utterances of one language as one run (holding their regions), in time order. */
export function collapseRuns(utterances: readonly Utterance[], languages: readonly LanguageFamily[]): LanguageRun[] {
  const runs: LanguageRun[] = [];
  utterances.forEach((utterance, i) => {
    const last = runs[runs.length - 1];
    if (last && last.language === languages[i]) last.regions.push(...utterance.regions);
    else runs.push({ language: languages[i], regions: [...utterance.regions] });
  });
  return runs;
}

/** Distinct languages in order of first appearance: the detection block's `languages`. */
export function languagesOf(runs: readonly LanguageRun[]): LanguageFamily[] {
  return [...new Set(runs.map((r) => r.language))];
}
