// Per-utterance language (contract, behavioural rule 1): each utterance gets the language detected on
// it, utterances too short or too uncertain to judge inherit from their neighbours, and consecutive
// utterances of one language collapse into a run. Runs are what the recogniser transcribes, each in
// its language. Without hints, whether the speech is outside the supported families is judged over
// the recording, never on one utterance (decideLanguages). Pure decisions over detection results, so
// they are tested on recorded detections.
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
 * An utterance whose families' summed probability is at least this is in a family (the likeliest of
 * them) even when its likeliest single language is not. At half the families together are as likely
 * as every other language together, so the best family is a better answer than a refusal: accented or
 * very short speech spreads whisper's belief over neighbours of the spoken language (`cy` or `nn` for
 * English, `gl` for Spanish or Portuguese), and the outlier on top is then one of many, not the language.
 */
export const FAMILIES_DOMINATE_SHARE = 0.5;

/**
 * An utterance whose families' summed probability is below this is confidently outside them: whisper
 * puts four fifths of its belief elsewhere. Speech really in an unsupported language leaves the
 * families far less (what its language does not take: a tenth or less when whisper gives that
 * language 0.9; a flat answer over whisper's 100 languages, as the generated test models give, leaves
 * them 0.08), so the band up to FAMILIES_DOMINATE_SHARE is doubt, not evidence: such an utterance is
 * `uncertain` and inherits from its neighbours.
 */
export const OUTSIDE_FAMILIES_SHARE = 0.2;

/**
 * The request is refused when utterances confidently outside the families make up at least this share
 * of the detected speech. One outlier utterance in a consultation is a few per cent of its speech; a
 * quarter is a part of the conversation held in another language, and transcribing it in its
 * neighbours' language would be the silent fallback the contract forbids.
 */
export const REFUSED_OUTSIDE_SPEECH_SHARE = 0.25;

/**
 * The request is also refused when a passage (consecutive detected utterances, none in a family) holds
 * this many seconds of speech confidently outside the families: half a minute in a row, whisper's own
 * window, is a passage in another language, not a slip, and it keeps a long recording (where a quarter
 * is minutes) from hiding one.
 */
export const REFUSED_OUTSIDE_PASSAGE_SECONDS = 30;

/** What one detection says: a family, confidently outside the families, or too uncertain to say. */
export type LanguageVerdict = { kind: 'family'; language: LanguageFamily } | { kind: 'outside' } | { kind: 'uncertain' };

/**
 * The verdict on one detection among `candidates` (OUTSIDE_FAMILIES_SHARE, FAMILIES_DOMINATE_SHARE):
 * outside when the candidates together hold under a fifth; else the best candidate when the likeliest
 * language is one of them or they together hold at least half; else uncertain.
 */
export function judgeLanguage(probabilities: LanguageProbabilities, candidates: readonly LanguageFamily[]): LanguageVerdict {
  const share = candidates.reduce((sum, c) => sum + (probabilities[c] ?? 0), 0);
  if (share < OUTSIDE_FAMILIES_SHARE) return { kind: 'outside' };
  const top = topLanguage(probabilities);
  if (share >= FAMILIES_DOMINATE_SHARE || (top !== null && (candidates as readonly string[]).includes(top))) {
    return { kind: 'family', language: bestCandidate(probabilities, candidates) };
  }
  return { kind: 'uncertain' };
}

/** The likeliest of the candidates (the first of them on a tie). */
export function bestCandidate(probabilities: LanguageProbabilities, candidates: readonly LanguageFamily[]): LanguageFamily {
  return candidates.reduce((best, c) => ((probabilities[c] ?? 0) > (probabilities[best] ?? 0) ? c : best));
}

/**
 * The candidate one detection favours. With hints the caller vouches for the candidates, so the
 * likeliest of them wins. Without hints only a `family` verdict (judgeLanguage) names one: null
 * otherwise, which a lone detection cannot overrule (decideLanguages judges a recording's utterances
 * together; there is never a silent fallback to English).
 */
export function chooseLanguage(
  probabilities: LanguageProbabilities,
  candidates: readonly LanguageFamily[],
  restrictToCandidates: boolean,
): LanguageFamily | null {
  if (restrictToCandidates) return bestCandidate(probabilities, candidates);
  const verdict = judgeLanguage(probabilities, candidates);
  return verdict.kind === 'family' ? verdict.language : null;
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
 * an undetected utterance takes the language of the nearest detected utterance before it (or `before`,
 * the language of the speech ahead of these utterances), else the first one after it. Throws when
 * nothing was detected at all and nothing came before (the caller detects on all the speech).
 */
export function fillUndetected(detected: ReadonlyArray<LanguageFamily | null>, before: LanguageFamily | null = null): LanguageFamily[] {
  const first = before ?? detected.find((l) => l !== null);
  if (first === undefined || first === null) throw new RangeError('at least one utterance must be detected');
  let previous: LanguageFamily = first;
  return detected.map((language) => {
    if (language !== null) previous = language;
    return previous;
  });
}

/** One utterance as decideLanguages sees it: its speech seconds and its detection (null: not detected). */
export interface JudgedUtterance {
  speechSeconds: number;
  probabilities: LanguageProbabilities | null;
}

/**
 * What detection has established over the speech so far, carried from one stretch of a recording to
 * the next (a job's chunks): the refusal rule is over the recording, not over one chunk of it.
 */
export interface LanguageEvidence {
  /** The language of the last utterance so far: what the next stretch's undecided speech inherits. */
  last: LanguageFamily | null;
  /** Seconds of speech in detected utterances. */
  detectedSeconds: number;
  /** Of them, seconds in utterances confidently outside the families. */
  outsideSeconds: number;
  /** Seconds outside in the passage still open at the end (no utterance in a family since it began). */
  openPassageSeconds: number;
}

export const NO_LANGUAGE_EVIDENCE: LanguageEvidence = { last: null, detectedSeconds: 0, outsideSeconds: 0, openPassageSeconds: 0 };

export type LanguageDecision =
  | { refused: false; languages: LanguageFamily[]; evidence: LanguageEvidence }
  /** `detected`: the likeliest language of the evidence against the families, for logs. */
  | { refused: true; detected: string };

/**
 * Languages for utterances detected without hints (every supported family a candidate), judged
 * together (docs/API.md "Speech, silence and language"):
 * - each detected utterance gets judgeLanguage's verdict; one in a family takes it;
 * - refused when the utterances outside make up REFUSED_OUTSIDE_SPEECH_SHARE of the detected speech
 *   (counting `before`), or a passage with no utterance in a family holds REFUSED_OUTSIDE_PASSAGE_SECONDS
 *   of speech outside;
 * - otherwise utterances outside, uncertain or undetected inherit from their neighbours;
 * - when no utterance is in a family (and none came before), the utterances' probabilities pooled by
 *   speech seconds are judged the same way: a family, or refused.
 */
export function decideLanguages(
  utterances: readonly JudgedUtterance[],
  candidates: readonly LanguageFamily[],
  before: LanguageEvidence = NO_LANGUAGE_EVIDENCE,
): LanguageDecision {
  let { detectedSeconds, outsideSeconds, openPassageSeconds } = before;
  const outside: LanguageProbabilities = {};
  const pooled: LanguageProbabilities = {};
  let pooledSeconds = 0;
  const detected: Array<LanguageFamily | null> = [];
  for (const utterance of utterances) {
    const { probabilities, speechSeconds } = utterance;
    const verdict = probabilities ? judgeLanguage(probabilities, candidates) : null;
    detected.push(verdict?.kind === 'family' ? verdict.language : null);
    if (!probabilities || !verdict) continue;
    detectedSeconds += speechSeconds;
    pooledSeconds += speechSeconds;
    addWeighted(pooled, probabilities, speechSeconds);
    if (verdict.kind === 'family') openPassageSeconds = 0;
    else if (verdict.kind === 'outside') {
      outsideSeconds += speechSeconds;
      openPassageSeconds += speechSeconds;
      addWeighted(outside, probabilities, speechSeconds);
      if (openPassageSeconds >= REFUSED_OUTSIDE_PASSAGE_SECONDS) return refusal(outside);
    }
  }
  if (outsideSeconds > 0 && outsideSeconds >= REFUSED_OUTSIDE_SPEECH_SHARE * detectedSeconds) return refusal(outside);

  let languages: LanguageFamily[];
  if (before.last === null && detected.every((l) => l === null)) {
    if (pooledSeconds === 0) throw new RangeError('at least one utterance must be detected');
    // The pool is a sum weighted by seconds: normalised to probabilities before it is judged.
    for (const language of Object.keys(pooled)) pooled[language] /= pooledSeconds;
    const verdict = judgeLanguage(pooled, candidates);
    if (verdict.kind !== 'family') return refusal(pooled);
    languages = detected.map(() => verdict.language);
  } else {
    languages = fillUndetected(detected, before.last);
  }
  return { refused: false, languages, evidence: { last: languages[languages.length - 1] ?? before.last, detectedSeconds, outsideSeconds, openPassageSeconds } };
}

function addWeighted(sum: LanguageProbabilities, probabilities: LanguageProbabilities, weight: number): void {
  for (const [language, p] of Object.entries(probabilities)) sum[language] = (sum[language] ?? 0) + p * weight;
}

function refusal(evidence: LanguageProbabilities): LanguageDecision {
  return { refused: true, detected: topLanguage(evidence) ?? 'unknown' };
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
