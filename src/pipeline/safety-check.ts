// The vocabulary safety check (contract rule 3): a prompt may fix how a term is spelt, never what was
// said about a patient. One decoding window is decoded with the prompt and without it (the
// context-free check); the prompted text stands only if, compared with the context-free text,
//   - every number (digits or spoken, read by spoken-numbers.ts), dose unit, date word (month,
//     weekday, today/tomorrow/yesterday), negation word ("no", "not", "denies", any "n't", ...) and
//     laterality word (left/right/bilateral) is the same, in the same order (clinical-text/safety-facts.ts);
//   - no segment is lost: each context-free segment of MIN_SEGMENT_WORDS or more words keeps at least
//     MIN_SEGMENT_COVERAGE of its words in the prompted text;
//   - no segment is duplicated: no prompted segment of 2 or more words appears more often than in
//     the context-free text;
//   - the length stays within LENGTH_RATIO_BOUND: the longer text has at most that many times the
//     words of the shorter, once they differ by more than LENGTH_SLACK_WORDS words.
// Any failure makes the window fall back to the context-free text. The facts compared come from both
// texts the same way, so a difference is a change the prompt made.
import { FACT_KINDS, safetyFacts } from '../clinical-text/safety-facts.js';
import { readNumbers, textWords } from '../clinical-text/spoken-numbers.js';

export { type SafetyFacts, safetyFacts } from '../clinical-text/safety-facts.js';

export const LENGTH_RATIO_BOUND = 1.5;
export const LENGTH_SLACK_WORDS = 4;
export const MIN_SEGMENT_WORDS = 3;
export const MIN_SEGMENT_COVERAGE = 0.5;

/** Why a window fell back; the audit counts them. */
export type SafetyReason = 'number' | 'unit' | 'date' | 'negation' | 'laterality' | 'segment_lost' | 'segment_duplicated' | 'length';

export const SAFETY_REASONS: readonly SafetyReason[] = ['number', 'unit', 'date', 'negation', 'laterality', 'segment_lost', 'segment_duplicated', 'length'];

export interface SafetyVerdict {
  safe: boolean;
  reasons: SafetyReason[];
}

/** Compares one window's context-free and prompted segments' texts. `checkCapped`: the check was cut for length. */
export function checkSafety(contextFree: readonly string[], prompted: readonly string[], checkCapped = false): SafetyVerdict {
  const reasons: SafetyReason[] = [];
  const a = safetyFacts(contextFree.join(' '));
  const b = safetyFacts(prompted.join(' '));
  for (const kind of FACT_KINDS) {
    if (!sameSequence(a[kind], b[kind])) reasons.push(kind);
  }
  const freeWords = wordsOf(contextFree.join(' '));
  const promptedWords = wordsOf(prompted.join(' '));
  if (segmentLost(contextFree, new Set(promptedWords))) reasons.push('segment_lost');
  if (segmentDuplicated(contextFree, prompted)) reasons.push('segment_duplicated');
  if (checkCapped || lengthBeyondBound(freeWords.length, promptedWords.length)) reasons.push('length');
  return { safe: reasons.length === 0, reasons };
}

/** Words with numbers read as values, so "one twenty" and "120" are the same word. */
function wordsOf(text: string): string[] {
  return readNumbers(textWords(text)).map((item) => (item.kind === 'number' ? item.value : item.text));
}

function sameSequence(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function segmentLost(contextFree: readonly string[], promptedWords: Set<string>): boolean {
  return contextFree.some((segment) => {
    const words = wordsOf(segment);
    if (words.length < MIN_SEGMENT_WORDS) return false;
    const kept = words.filter((w) => promptedWords.has(w)).length;
    return kept / words.length < MIN_SEGMENT_COVERAGE;
  });
}

function segmentDuplicated(contextFree: readonly string[], prompted: readonly string[]): boolean {
  const count = (segments: readonly string[]) => {
    const counts = new Map<string, number>();
    for (const segment of segments) {
      const words = wordsOf(segment);
      if (words.length < 2) continue;
      const key = words.join(' ');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  };
  const free = count(contextFree);
  for (const [key, n] of count(prompted)) if (n > 1 && n > (free.get(key) ?? 0)) return true;
  return false;
}

export function lengthBeyondBound(freeWords: number, promptedWords: number): boolean {
  const longer = Math.max(freeWords, promptedWords);
  const shorter = Math.min(freeWords, promptedWords);
  if (longer - shorter <= LENGTH_SLACK_WORDS) return false;
  return shorter === 0 || longer / shorter > LENGTH_RATIO_BOUND;
}
