// The language stage: from the request's language choice and the speech found, the language runs the
// recogniser transcribes. Four ways in (contract, behavioural rules 1 and 2):
// - requested or key default: one run in that language, nothing detected;
// - omitted with no key default (`dominant`): detected on the first speech-bearing 30 s window of the
//   recording's opening (up to four windows); a second probe on the next speech-bearing window checks
//   it, and when the two disagree the recording goes the per-utterance way;
// - `auto`: every utterance detected among the candidates, runs collapsed (`per_utterance` is the
//   same over every supported family, where mixed dominant probes lead). Without hints an utterance
//   outside the families is judged with the rest of the recording (decideLanguages in language-runs.ts);
//   with hints, or on the per_utterance and dominant paths, the likeliest candidate is always taken,
//   never refused, so no lone detection can derail them either.
import { LANGUAGE_FAMILIES, type LanguageFamily, type LanguageTag } from '../domain/language-families.js';
import {
  chooseLanguage,
  collapseRuns,
  decideLanguages,
  DETECTION_SPEECH_SECONDS,
  fillUndetected,
  isDetectable,
  type JudgedUtterance,
  type LanguageEvidence,
  type LanguageProbabilities,
  type LanguageRun,
  languagesOf,
  utterancesOf,
} from './language-runs.js';
import { UnsupportedDetectedLanguage } from './pipeline-errors.js';
import { packRegions, type SpeechRegion, speechSecondsOf } from './speech-regions.js';

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
  /** What unhinted per-utterance detection established (null on other paths): the next stretch's `before`. */
  evidence: LanguageEvidence | null;
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
  /** Unhinted `auto`: what the recording's speech before this stretch established (a job's earlier chunks). */
  before?: LanguageEvidence;
  signal?: AbortSignal;
}

export async function planLanguage(input: LanguageStageInput): Promise<LanguagePlan> {
  const { choice, regions } = input;
  if (choice.mode === 'explicit') {
    return {
      runs: [{ language: choice.language.family, regions }],
      language: choice.language.tag,
      source: choice.source,
      detection: null,
      evidence: null,
    };
  }
  if (choice.mode === 'auto' && !choice.hints) {
    const { runs, evidence } = await judgedRuns(input);
    return planOf(runs, detectionBlock(runs, choice), evidence);
  }
  if (choice.mode === 'auto' || choice.mode === 'per_utterance') {
    const runs = await candidateRuns(input, candidatesOf(choice));
    return planOf(runs, detectionBlock(runs, choice));
  }
  return dominantPlan(input);
}

/**
 * What a stretch without speech reports (nothing is detected on it, and no model is called): a given
 * language keeps its source; `auto` (and per_utterance) says `detected` with a detection block of no
 * utterances and the candidates as asked, since detection is what the client chose; an omitted language
 * with nothing said is the `default` (nothing was detected, nothing asked).
 */
export function noSpeechLanguage(choice: LanguageChoice): { source: LanguageSource; detection: LanguageDetectionBlock | null } {
  if (choice.mode === 'explicit') return { source: choice.source, detection: null };
  if (choice.mode === 'dominant') return { source: 'default', detection: null };
  return { source: 'detected', detection: detectionBlock([], choice) };
}

/** The candidate families of a detecting choice: the hints' families, or every supported one. */
function candidatesOf(choice: Extract<LanguageChoice, { mode: 'auto' | 'per_utterance' }>): LanguageFamily[] {
  return choice.mode === 'auto' && choice.hints ? [...new Set(choice.hints.map((h) => h.family))] : [...LANGUAGE_FAMILIES];
}

async function dominantPlan(input: LanguageStageInput): Promise<LanguagePlan> {
  const probes: LanguageFamily[] = [];
  for (const window of speechBearingWindows(input.regions).slice(0, DOMINANT_PROBES)) {
    const packed = packRegions(input.pcm, input.sampleRate, window);
    // No refusal here: the caller asked for no language in particular, so the likeliest supported one is the answer.
    probes.push(chooseLanguage(await input.detect(packed.pcm, input.signal), LANGUAGE_FAMILIES, true)!);
  }
  // Speech only after the opening (or too little of it to bear a window): the whole recording's speech is the probe.
  if (probes.length === 0) {
    const packed = packRegions(input.pcm, input.sampleRate, input.regions);
    probes.push(chooseLanguage(await input.detect(packed.pcm, input.signal), LANGUAGE_FAMILIES, true)!);
  }
  if (probes.every((p) => p === probes[0])) {
    const runs = [{ language: probes[0], regions: input.regions }];
    return planOf(runs, detectionBlock(runs, { mode: 'per_utterance' }));
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

/** Hinted `auto` and `per_utterance`: each detectable utterance in its likeliest candidate, never refused (the candidates are vouched for). */
async function candidateRuns(input: LanguageStageInput, candidates: LanguageFamily[]): Promise<LanguageRun[]> {
  const utterances = utterancesOf(input.regions);
  const detected: Array<LanguageFamily | null> = [];
  for (const utterance of utterances) {
    detected.push(isDetectable(utterance) ? chooseLanguage(await input.detect(openingSpeech(input, utterance.regions), input.signal), candidates, true) : null);
  }
  // Only short utterances: judged together, as one piece of speech.
  if (detected.every((d) => d === null)) {
    const language = chooseLanguage(await input.detect(openingSpeech(input, input.regions), input.signal), candidates, true)!;
    return [{ language, regions: [...input.regions] }];
  }
  return collapseRuns(utterances, fillUndetected(detected));
}

/**
 * Unhinted `auto`: every detectable utterance detected among all the families, then judged together
 * with what came before (decideLanguages): refused only when the speech outside the families carries
 * the recording or a passage of it.
 */
async function judgedRuns(input: LanguageStageInput): Promise<{ runs: LanguageRun[]; evidence: LanguageEvidence }> {
  const utterances = utterancesOf(input.regions);
  const judged: JudgedUtterance[] = [];
  for (const utterance of utterances) {
    const probabilities = isDetectable(utterance) ? await input.detect(openingSpeech(input, utterance.regions), input.signal) : null;
    judged.push({ speechSeconds: utterance.speechSeconds, probabilities });
  }
  // Only short utterances: judged together, as one utterance of all the speech.
  const together = judged.every((u) => u.probabilities === null);
  const decision = together
    ? decideLanguages(
        [{ speechSeconds: speechSecondsOf(input.regions), probabilities: await input.detect(openingSpeech(input, input.regions), input.signal) }],
        LANGUAGE_FAMILIES,
        input.before,
      )
    : decideLanguages(judged, LANGUAGE_FAMILIES, input.before);
  if (decision.refused) throw new UnsupportedDetectedLanguage(decision.detected);
  const languages = together ? utterances.map(() => decision.languages[0]) : decision.languages;
  return { runs: collapseRuns(utterances, languages), evidence: decision.evidence };
}

/** The first DETECTION_SPEECH_SECONDS of speech in `regions`, packed: what an utterance is judged on. */
function openingSpeech(input: LanguageStageInput, regions: SpeechRegion[]): Float32Array {
  const packed = packRegions(input.pcm, input.sampleRate, regions).pcm;
  const limit = Math.round(DETECTION_SPEECH_SECONDS * input.sampleRate);
  // A copy, not a view: the samples go to a worker thread, which would otherwise receive the whole buffer.
  return packed.length > limit ? packed.slice(0, limit) : packed;
}

/** The detection block of `runs` (none: a stretch without speech), with the candidates as `choice` asked for them. */
function detectionBlock(runs: LanguageRun[], choice: Extract<LanguageChoice, { mode: 'auto' | 'per_utterance' }>): LanguageDetectionBlock {
  const hints = choice.mode === 'auto' ? choice.hints : null;
  return {
    mode: 'per_utterance',
    candidates: candidatesOf(choice),
    ...(hints ? { requested_candidates: hints.map((h) => h.tag) } : {}),
    languages: languagesOf(runs),
    utterances: utterancesOf(runs.flatMap((r) => r.regions)).length,
    fallbacks: 0,
  };
}

function planOf(runs: LanguageRun[], detection: LanguageDetectionBlock, evidence: LanguageEvidence | null = null): LanguagePlan {
  const languages = languagesOf(runs);
  return { runs, language: languages.length === 1 ? languages[0] : 'mixed', source: 'detected', detection, evidence };
}
