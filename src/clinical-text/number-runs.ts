// Runs of digits as a transcript writes or says them: "555-019-2834", "(617) 555 0192", "+34 612 345 678",
// "five five five, zero one nine two", "double four seven". An identifier is a run's digits, whatever the
// grouping; a quantity ("1,250,000", "98.6") is not a run of that kind. Spoken digits are read by
// spoken-numbers.ts, leading zeros kept ("zero one nine two" is four digits).
import { UNITS_WORDS } from './safety-lexicon.js';
import { spokenNumberAt, type TextWord } from './spoken-numbers.js';

export interface NumberRun {
  from: number;
  to: number;
  /** Every digit, in order, separators dropped. */
  digits: string;
  /** The digits of each written or spoken group. */
  groups: string[];
  /** Some group was said in words. */
  spoken: boolean;
  /** Written with thousands separators ("1,250,000", "1.250.000"): a quantity. */
  quantity: boolean;
  /** Written "+": an international number. */
  plus: boolean;
  /** The index of the word after the run. */
  endWord: number;
  firstWord: number;
}

/** What may stand between two groups of one run: spaces, a hyphen, a slash, brackets, a comma or a tight dot. */
const GROUP_GAP = /^(?:[\s\-–(),/]{1,4}|\.)$/;
const ZERO_WORDS = new Set(['oh', 'o']);
const REPEAT_WORDS: Record<string, number> = { double: 2, triple: 3 };

/** One group at word `i`: its digits and the word after it, or null (a decimal, or not a number). */
function groupAt(words: readonly TextWord[], i: number, inRun: boolean): { digits: string; end: number; spoken: boolean; dotted?: string[] } | null {
  const w = words[i].text;
  if (/^\p{Nd}+$/u.test(w)) return { digits: toAsciiDigits(w), end: i + 1, spoken: false };
  // "555.019.2834" is one word of the transcript: groups joined by dots (one dot is a decimal).
  if (/^\p{Nd}+(?:\.\p{Nd}+){2,}$/u.test(w)) return { digits: toAsciiDigits(w.replace(/\./g, '')), end: i + 1, spoken: false, dotted: w.split('.') };
  if (inRun && ZERO_WORDS.has(w)) return { digits: '0', end: i + 1, spoken: true };
  const repeat = REPEAT_WORDS[w];
  const next = words[i + 1]?.text;
  if (repeat && next !== undefined && UNITS_WORDS[next] !== undefined && UNITS_WORDS[next] < 10) {
    return { digits: String(UNITS_WORDS[next]).repeat(repeat), end: i + 2, spoken: true };
  }
  const run = spokenNumberAt(words as TextWord[], i);
  if (run === null || run.value === '' || run.value.includes('.')) return null;
  // "two million", "twelve thousand": a quantity said, never an identifier's digits.
  if (words.slice(i, run.end).some((x) => x.text === 'thousand' || x.text === 'million')) return null;
  return { digits: run.value, end: run.end, spoken: true };
}

/** Every run of the text's words, in order. */
export function numberRuns(text: string, words: readonly TextWord[]): NumberRun[] {
  const runs: NumberRun[] = [];
  let i = 0;
  while (i < words.length) {
    const first = groupAt(words, i, false);
    if (first === null) {
      i++;
      continue;
    }
    const run: NumberRun = {
      from: words[i].from,
      to: words[first.end - 1].to,
      digits: first.digits,
      groups: first.dotted ?? [first.digits],
      spoken: first.spoken,
      quantity: false,
      plus: text[words[i].from - 1] === '+',
      endWord: first.end,
      firstWord: i,
    };
    if (run.plus) run.from--;
    // "(617) 555-0192": the bracketed area code's opening bracket belongs to the number.
    else if (text[run.from - 1] === '(' && text[run.to] === ')') run.from--;
    let gaps = first.dotted ? '.'.repeat(first.dotted.length - 1) : '';
    let j = first.end;
    while (j < words.length && GROUP_GAP.test(text.slice(run.to, words[j].from))) {
      const group = groupAt(words, j, true);
      if (group === null) break;
      // A comma joins digits said one group at a time ("five five five, zero one nine two"), not written
      // numbers: "MRN 4471902, 45 years old" is two.
      if (text.slice(run.to, words[j].from).includes(',') && !(group.spoken && run.spoken)) break;
      gaps += (text.slice(run.to, words[j].from).trim() || ' ') + (group.dotted ? '.'.repeat(group.dotted.length - 1) : '');
      run.digits += group.digits;
      run.groups.push(...(group.dotted ?? [group.digits]));
      run.spoken ||= group.spoken;
      run.to = words[group.end - 1].to;
      j = group.end;
    }
    run.endWord = j;
    // "1,250,000" and "1.250.000" (every later group three written digits, after a comma or a dot): a quantity.
    run.quantity = !run.spoken && run.groups.length > 1 && /^[,.]+$/.test(gaps) && run.groups.slice(1).every((g) => g.length === 3);
    runs.push(run);
    i = j;
  }
  return runs;
}

/** Arabic-Indic and Devanagari digits as ASCII digits (Whisper writes either for Arabic and Hindi). */
export function toAsciiDigits(s: string): string {
  return s.replace(/\p{Nd}/gu, (d) => {
    const code = d.codePointAt(0)!;
    for (const zero of [0x30, 0x660, 0x6f0, 0x966]) if (code >= zero && code <= zero + 9) return String(code - zero);
    return d;
  });
}

/** A number's value from its digits (leading zeros dropped); NaN for none. */
export const valueOf = (digits: string) => (digits === '' ? Number.NaN : Number(digits));
