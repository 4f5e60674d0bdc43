// The language stage: from the request's language choice and the speech found, the language runs the
// recogniser transcribes. Four ways in (contract, behavioural rules 1 and 2):
// - requested or key default: one run in that language, nothing detected;
// - omitted with no key default (`dominant`): detected on the first speech-bearing 30 s window of the
//   recording's opening (up to four windows); a second probe on the next speech-bearing window checks
//   it, and when the two disagree the recording goes the per-utterance way;
// - `auto`: every utterance detected among the candidates, runs collapsed (`per_utterance` is the
//   same over every supported family, where mixed dominant probes lead).
import { LANGUAGE_FAMILIES, type LanguageFamily, type LanguageTag } from '../domain/language-families.js';
import {
  DETECTION_SPEECH_SECONDS,
  chooseLanguage,
  collapseRuns,
  fillUndetected,
  isDetectable,
  languagesOf,
  topLanguage,
  utterancesOf,
  type LanguageProbabilities,
  type LanguageRun,
} from './language-runs.js';
import { UnsupportedDetectedLanguage } from './pipeline-errors.js';
import { packRegions, speechSecondsOf, type SpeechRegion } from './speech-regions.js';

/** Length of one probe window: whisper's own input window. */
export const DETECTION_WINDOW_SECONDS = 30;
/** Windows looked at from the start before concluding the opening bears no speech. */
export const MAX_DETECTION_WINDOWS = 4;
/** Speech a window must hold to bear speech (shorter than any phrase, longer than a click). */
export const MIN_WINDOW_SPEECH_SECONDS = 0.5;
/** Probes taken for an omitted language: the first speech-bearing window, and the next one to check it. */
const DOMINANT_PROBES = 2;

/** How the reported language was chosen: given, the key's default (or nothing was said), or detected. */
export const LANGUAGE_SOURCES = ['requested', 'default', 'detected'] as const;
export type LanguageSource = (typeof LANGUAGE_SOURCES)[number];

export interface LanguageDetectionBlock {
  mode: 'per_utterance';
  candidates: string[];
  requested_candidates?: string[];
  languages: string[];
  utterances: number;
  fallbacks: 0;
}

/** How a request chooses its language: given (requested or the key's default), detected as the dominant one, or `auto`. */
export type LanguageChoice =
  | { mode: 'explicit'; language: LanguageTag; source: 'requested' | 'default' }
  | { mode: 'dominant' }
  | { mode: 'auto'; hints: LanguageTag[] | null }
  /** Where mixed dominant probes lead: every utterance detected among the supported families, never refused. */
  | { mode: 'per_utterance' };

export interface LanguagePlan {
  runs: LanguageRun[];
  /** The effective language reported: a tag for one language, `mixed` for several. */
  language: string;
  source: LanguageSource;
  detection: LanguageDetectionBlock | null;
}

/** Detects the language of 16 kHz mono speech: probabilities by whisper language code. */
export type DetectLanguage = (pcm: Float32Array, signal?: AbortSignal) => Promise<LanguageProbabilities>;

export interface LanguageStageInput {
  choice: LanguageChoice;
  pcm: Float32Array;
  sampleRate: number;
  /** The speech in `pcm`, in time order (non-empty: silence never reaches this stage). */
  regions: SpeechRegion[];
  detect: DetectLanguage;
  signal?: AbortSignal;
}

export async function planLanguage(input: LanguageStageInput): Promise<LanguagePlan> {
  const { choice, regions } = input;
  if (choice.mode === 'explicit') {
    return { runs: [{ language: choice.language.family, regions }], language: choice.language.tag, source: choice.source, detection: null };
  }
  if (choice.mode === 'auto') {
    const candidates: LanguageFamily[] = choice.hints ? [...new Set(choice.hints.map((h) => h.family))] : [...LANGUAGE_FAMILIES];
    const runs = await perUtteranceRuns(input, candidates, choice.hints !== null);
    const block: LanguageDetectionBlock = {
      ...detectionBlock(runs, candidates),
      ...(choice.hints ? { requested_candidates: choice.hints.map((h) => h.tag) } : {}),
    };
    return planOf(runs, block);
  }
  if (choice.mode === 'per_utterance') {
    const candidates = [...LANGUAGE_FAMILIES];
    const runs = await perUtteranceRuns(input, candidates, true);
    return planOf(runs, detectionBlock(runs, candidates));
  }
  return dominantPlan(input);
}

async function dominantPlan(input: LanguageStageInput): Promise<LanguagePlan> {
  const probes: LanguageFamily[] = [];
  for (const window of speechBearingWindows(input.regions).slice(0, DOMINANT_PROBES)) {
    const packed = packRegions(input.pcm, input.sampleRate, window);
    // No refusal here: the caller asked for no language in particular, so the likeliest supported one is the answer.
    probes.push(chooseLanguage(await input.detect(packed.pcm, input.signal), LANGUAGE_FAMILIES, true)!);
  }
  const candidates = [...LANGUAGE_FAMILIES];
  // Speech only after the opening (or too little of it to bear a window): the whole recording's speech is the probe.
  if (probes.length === 0) {
    const packed = packRegions(input.pcm, input.sampleRate, input.regions);
    probes.push(chooseLanguage(await input.detect(packed.pcm, input.signal), LANGUAGE_FAMILIES, true)!);
  }
  if (probes.every((p) => p === probes[0])) {
    const runs = [{ language: probes[0], regions: input.regions }];
    return planOf(runs, detectionBlock(runs, candidates));
  }
  // Mixed probes escalate to the per-utterance path (contract, behavioural rule 2).
  return planLanguage({ ...input, choice: { mode: 'per_utterance' } });
}

/**
 * The opening's speech-bearing windows (at most MAX_DETECTION_WINDOWS, from the recording's start),
 * each as the speech regions clipped to it.
 */
export function speechBearingWindows(regions: readonly SpeechRegion[]): SpeechRegion[][] {
  const windows: SpeechRegion[][] = [];
  for (let index = 0; index < MAX_DETECTION_WINDOWS; index++) {
    const from = index * DETECTION_WINDOW_SECONDS;
    const to = from + DETECTION_WINDOW_SECONDS;
    const clipped = regions.filter((r) => r.end > from && r.start < to).map((r) => ({ start: Math.max(r.start, from), end: Math.min(r.end, to) }));
    if (speechSecondsOf(clipped) >= MIN_WINDOW_SPEECH_SECONDS) windows.push(clipped);
  }
  return windows;
}

async function perUtteranceRuns(input: LanguageStageInput, candidates: LanguageFamily[], restrict: boolean): Promise<LanguageRun[]> {
  const choose = (probabilities: LanguageProbabilities) => {
    const language = chooseLanguage(probabilities, candidates, restrict);
    if (language === null) throw new UnsupportedDetectedLanguage(topLanguage(probabilities) ?? 'unknown');
    return language;
  };
  const utterances = utterancesOf(input.regions);
  const detected: Array<LanguageFamily | null> = [];
  for (const utterance of utterances) {
    if (!isDetectable(utterance)) {
      detected.push(null);
      continue;
    }
    detected.push(choose(await input.detect(openingSpeech(input, utterance.regions), input.signal)));
  }
  // Only short utterances: judged together, as one piece of speech.
  if (detected.every((d) => d === null)) {
    const language = choose(await input.detect(openingSpeech(input, input.regions), input.signal));
    return [{ language, regions: [...input.regions] }];
  }
  return collapseRuns(utterances, fillUndetected(detected));
}

/** The first DETECTION_SPEECH_SECONDS of speech in `regions`, packed: what an utterance is judged on. */
function openingSpeech(input: LanguageStageInput, regions: SpeechRegion[]): Float32Array {
  const packed = packRegions(input.pcm, input.sampleRate, regions).pcm;
  const limit = Math.round(DETECTION_SPEECH_SECONDS * input.sampleRate);
  // A copy, not a view: the samples go to a worker thread, which would otherwise receive the whole buffer.
  return packed.length > limit ? packed.slice(0, limit) : packed;
}

function detectionBlock(runs: LanguageRun[], candidates: string[]): LanguageDetectionBlock {
  return {
    mode: 'per_utterance',
    candidates,
    languages: languagesOf(runs),
    utterances: utterancesOf(runs.flatMap((r) => r.regions)).length,
    fallbacks: 0,
  };
}

function planOf(runs: LanguageRun[], detection: LanguageDetectionBlock): LanguagePlan {
  const languages = languagesOf(runs);
  return { runs, language: languages.length === 1 ? languages[0] : 'mixed', source: 'detected', detection };
}
