// Recognition with a prompt (vocabulary terms, OpenAI's `prompt`) and its safety check, one decoding
// window (speech-regions.ts windowRegions) at a time:
//   - direct (50 terms or fewer): one engine call decodes the window with the prompt (whisper_full, the
//     output) and decodes the same encoder output again without it (the context-free check,
//     native/context-free-decoder.h): one encoder run, two decodes;
//   - retrieval (more than 50): a first, context-free whisper_full pass; the terms are ranked against
//     its text (term-retrieval.ts) and the best 50 prompted in a second pass; the first pass is the
//     check (two encoder runs: the slower path).
// The two texts are compared (safety-check.ts). A window that fails falls back to the context-free
// text; when word timing is wanted and the fallback text came from the check decode (which has no
// token timing), the window is decoded once more without the prompt by whisper_full.
// Suspect insertions: terms the prompted window printed that its context-free text lacks, spelt by
// tokens whose mean probability is under SUSPECT_TOKEN_PROBABILITY. They are reported, not removed.
import type { TranscribeOptions } from '../engine/engine.js';
import type { Transcript, TranscriptSegment } from '../engine/transcript.js';
import type { Transcribe } from './recognised-segment.js';
import { checkSafety, type SafetyReason } from './safety-check.js';
import type { TermCorrection } from './term-corrections.js';
import { containsTerm, termSpans } from './term-presence.js';
import { rankTerms } from './term-retrieval.js';

export const MAX_PROMPTED_TERMS = 50;
export const SUSPECT_TOKEN_PROBABILITY = 0.5;
/** How long the check may run past the prompted text (in its tokens) before it cannot pass anyway. */
export const CHECK_LENGTH_BOUND = 2;

export interface Prompting {
  /** Merged terms (request above dictionary), deduplicated. */
  terms: readonly string[];
  /** OpenAI's `prompt`, ahead of the terms. */
  prompt: string | null;
  /** Word timing is wanted: fallback text needs whisper_full's token timing. */
  wordTiming: boolean;
}

/** What prompting did, summed over windows (and a job's chunks): the audit's request coverage. */
export interface VocabularyTally {
  promptedChunks: number;
  fallbackChunks: number;
  /** Distinct terms placed in a prompt. */
  promptedTerms: string[];
  /** Distinct suspect insertions. */
  suspectTerms: string[];
  fallbackReasons: Partial<Record<SafetyReason, number>>;
  /** Surface corrections made (term-corrections.ts), times in the recording. */
  corrections: TermCorrection[];
}

export const EMPTY_TALLY: VocabularyTally = { promptedChunks: 0, fallbackChunks: 0, promptedTerms: [], suspectTerms: [], fallbackReasons: {}, corrections: [] };

export function addTallies(a: VocabularyTally, b: VocabularyTally): VocabularyTally {
  const reasons = { ...a.fallbackReasons };
  for (const [reason, n] of Object.entries(b.fallbackReasons) as Array<[SafetyReason, number]>) reasons[reason] = (reasons[reason] ?? 0) + n;
  return {
    promptedChunks: a.promptedChunks + b.promptedChunks,
    fallbackChunks: a.fallbackChunks + b.fallbackChunks,
    promptedTerms: union(a.promptedTerms, b.promptedTerms),
    suspectTerms: union(a.suspectTerms, b.suspectTerms),
    fallbackReasons: reasons,
    corrections: [...a.corrections, ...b.corrections],
  };
}

/** A chunk's tally onto the recording's timeline. */
export function shiftTally(tally: VocabularyTally, offset: number): VocabularyTally {
  return { ...tally, corrections: tally.corrections.map((c) => ({ ...c, start: c.start + offset, end: c.end + offset })) };
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

/** whisper's initial prompt: the caller's prompt, then the terms as a plain list (spelling without instructions). */
export function promptText(prompt: string | null, terms: readonly string[]): string {
  return [prompt?.trim() ?? '', terms.length ? `${terms.join(', ')}.` : ''].filter((p) => p !== '').join(' ');
}

export interface WindowRecognition {
  /** On the window's packed audio. */
  segments: TranscriptSegment[];
  tally: VocabularyTally;
}

export async function recognisePromptedWindow(
  pcm: Float32Array,
  options: TranscribeOptions,
  prompting: Prompting,
  transcribe: Transcribe,
  signal?: AbortSignal,
): Promise<WindowRecognition> {
  const retrieval = prompting.terms.length > MAX_PROMPTED_TERMS;
  let firstPass: Transcript | null = null;
  let terms = prompting.terms;
  if (retrieval) {
    firstPass = await transcribe(pcm, options, signal);
    terms = rankTerms(prompting.terms, firstPass.text, MAX_PROMPTED_TERMS).map((r) => r.term);
  }
  const initialPrompt = promptText(prompting.prompt, terms);
  const prompted = await transcribe(
    pcm,
    { ...options, initialPrompt, ...(retrieval ? {} : { contextFreeCheck: true, checkLengthBound: CHECK_LENGTH_BOUND }) },
    signal,
  );
  const check = firstPass ?? prompted.check;
  const tally: VocabularyTally = { ...EMPTY_TALLY, promptedChunks: 1, promptedTerms: [...terms] };
  // Nothing was encoded (a window too short for whisper): nothing was said, with or without the prompt.
  if (!check) return { segments: prompted.segments, tally };

  const capped = !firstPass && prompted.check?.capped === true;
  const verdict = checkSafety(
    check.segments.map((s) => s.text),
    prompted.segments.map((s) => s.text),
    capped,
  );
  if (verdict.safe) {
    return { segments: prompted.segments, tally: { ...tally, suspectTerms: suspectInsertions(terms, prompted, check.text) } };
  }
  const fallbackReasons: VocabularyTally['fallbackReasons'] = {};
  for (const reason of verdict.reasons) fallbackReasons[reason] = 1;
  const fallbackTally = { ...tally, fallbackChunks: 1, fallbackReasons };
  // The check decode carries no token timing: where words are wanted, whisper_full decodes it again.
  const needsTiming = !firstPass && prompting.wordTiming;
  const fallback = needsTiming ? (await transcribe(pcm, options, signal)).segments : check.segments;
  return { segments: fallback, tally: fallbackTally };
}

function suspectInsertions(terms: readonly string[], prompted: Transcript, contextFreeText: string): string[] {
  return terms.filter((term) => {
    if (!containsTerm(prompted.text, term) || containsTerm(contextFreeText, term)) return false;
    return prompted.segments.some((segment) =>
      termSpans(segment.text, term).some(([from, to]) => meanProbability(segment, from, to) < SUSPECT_TOKEN_PROBABILITY),
    );
  });
}

/** Mean probability of the tokens that spell characters [from, to) of the segment's text. */
function meanProbability(segment: TranscriptSegment, from: number, to: number): number {
  let at = 0;
  let sum = 0;
  let n = 0;
  for (const token of segment.tokens) {
    if (token.special) continue;
    const start = at;
    at += token.text.length;
    if (token.text === '' || at <= from || start >= to) continue;
    sum += token.p;
    n++;
  }
  return n === 0 ? 1 : sum / n;
}
