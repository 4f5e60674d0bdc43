// Numbers as a transcript says them, in digits: "two point five" → 2.5, "one hundred twenty" → 120,
// and spoken groups side by side concatenate the way they are read out ("one twenty" → 120,
// "twenty twenty four" → 2024, "five five five one" → 5551). Every digit produced comes from a word
// that says it: nothing is padded or invented. Used by the safety check to compare what two decodes
// say, whichever way each wrote a number.
import { DECIMAL_POINT_WORDS, ORDINAL_WORDS, SCALE_WORDS, TENS_WORDS, UNITS_WORDS } from './safety-lexicon.js';

/** A word of a transcript, lower-cased and accent-folded, with its place in the text. */
export interface TextWord {
  text: string;
  from: number;
  to: number;
}

/** Words: letters and digits (a decimal point between digits and an apostrophe inside a word kept), and `%`. */
export function textWords(text: string): TextWord[] {
  const words: TextWord[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’][\p{L}\p{M}]+|\.\p{N}+)*|%/gu)) {
    words.push({ text: fold(m[0]), from: m.index, to: m.index + m[0].length });
  }
  return words;
}

/**
 * The marks folding drops: Latin accents, Arabic vowel signs and hamza/madda (أ reads as ا), and
 * Devanagari's nukta and nasal signs (हज़ार as हजार, पाँच as पांच). Devanagari's vowel signs are
 * letters of the word and stay: without them पचास (50) and पचासी (85) would be one word.
 */
const FOLDED_MARKS = /[\u0300-\u036f\u064b-\u065f\u0670\u0901\u0902\u093c]/gu;

export function fold(s: string): string {
  return s.normalize('NFKD').replace(FOLDED_MARKS, '').toLowerCase().replace(/’/g, "'");
}

export type SpokenItem = { kind: 'number'; value: string; from: number; to: number } | { kind: 'word'; text: string; from: number; to: number };

const isNumberWord = (w: string) => w in UNITS_WORDS || w in TENS_WORDS || w in SCALE_WORDS;

/** The words with every run of spoken or written numbers read as one digit string. */
export function readNumbers(words: TextWord[]): SpokenItem[] {
  const items: SpokenItem[] = [];
  let i = 0;
  while (i < words.length) {
    const w = words[i].text;
    const digits = /^\p{N}+(?:\.\p{N}+)?$/u.test(w) ? w : /^(\p{N}+)(st|nd|rd|th)$/u.exec(w)?.[1];
    if (digits !== undefined) {
      items.push({ kind: 'number', value: canonicalNumber(digits), from: words[i].from, to: words[i].to });
      i++;
      continue;
    }
    if (w in ORDINAL_WORDS) {
      items.push({ kind: 'number', value: String(ORDINAL_WORDS[w]), from: words[i].from, to: words[i].to });
      i++;
      continue;
    }
    // "point five" with no whole part reads 0.5, as the formatter writes it.
    const run = spokenNumberAt(words, i) ?? leadingDecimalAt(words, i);
    if (run === null) {
      items.push({ kind: 'word', text: w, from: words[i].from, to: words[i].to });
      i++;
      continue;
    }
    const ordinal = compoundOrdinal(words, run.end);
    const value = ordinal === null ? run.value : `${run.value.slice(0, -1)}${ordinal}`;
    const end = ordinal === null ? run.end : run.end + 1;
    items.push({ kind: 'number', value: canonicalNumber(value), from: words[i].from, to: words[end - 1].to });
    i = end;
  }
  return items;
}

/** "point five": a decimal said without its whole part; null when word `i` does not start one. */
export function leadingDecimalAt(words: TextWord[], i: number): { value: string; end: number } | null {
  if (!DECIMAL_POINT_WORDS.has(words[i].text) || !isDigitWord(words[i + 1]?.text)) return null;
  return readSpokenRun(words, i);
}

/** The digit of an ordinal 1-9 at word `i` when word `i - 1` is a tens word ("twenty third" is 23), else null. */
function compoundOrdinal(words: TextWord[], i: number): number | null {
  const ordinal = ORDINAL_WORDS[words[i]?.text];
  return i > 0 && words[i - 1].text in TENS_WORDS && ordinal !== undefined && ordinal < 10 ? ordinal : null;
}

const isDigitWord = (w: string | undefined) => w !== undefined && w in UNITS_WORDS && UNITS_WORDS[w] < 10;

/**
 * The spoken number starting at word `i` (digits as said, leading zeros kept: "zero five" → "05"),
 * and the index of the word after it; null when word `i` does not start one.
 */
export function spokenNumberAt(words: TextWord[], i: number): { value: string; end: number } | null {
  const w = words[i].text;
  if (!isNumberWord(w) || w in SCALE_WORDS) return null;
  return readSpokenRun(words, i);
}

/** Reads number words from `start`: groups concatenated, then an optional "point" and digit words. */
function readSpokenRun(words: TextWord[], start: number): { value: string; end: number } {
  let value = '';
  let i = start;
  while (i < words.length && isNumberWord(words[i].text)) {
    const group = readGroup(words, i);
    if (group.end === i) break;
    value += String(group.value);
    i = group.end;
  }
  if (i + 1 < words.length && DECIMAL_POINT_WORDS.has(words[i].text) && isDigitWord(words[i + 1].text)) {
    let fraction = '';
    i++;
    while (i < words.length && isDigitWord(words[i].text)) {
      fraction += String(UNITS_WORDS[words[i].text]);
      i++;
    }
    value = `${value || '0'}.${fraction}`;
  }
  return { value, end: i };
}

/**
 * One compositional cardinal: "three", "twenty five", "one hundred and twenty", "two thousand six".
 * It ends where the next word would start a new number ("one" after "five", "twenty" after "twenty").
 */
function readGroup(words: TextWord[], start: number): { value: number; end: number } {
  let total = 0;
  let current = 0;
  // What the group holds below a hundred: 0 nothing, 1 units/teens, 2 tens (a unit may follow).
  let below = 0;
  let i = start;
  for (; i < words.length; i++) {
    const w = words[i].text;
    if (w in UNITS_WORDS) {
      if (below === 1 || (below === 2 && UNITS_WORDS[w] >= 10) || (below === 2 && UNITS_WORDS[w] === 0)) break;
      current += UNITS_WORDS[w];
      below = 1;
    } else if (w in TENS_WORDS) {
      if (below !== 0) break;
      current += TENS_WORDS[w];
      below = 2;
    } else if (w === 'hundred') {
      if (i === start || current % 100 === 0 || current >= 100) break;
      current *= 100;
      below = 0;
    } else if (w === 'thousand' || w === 'million') {
      if (i === start || current === 0) break;
      total += current * SCALE_WORDS[w];
      current = 0;
      below = 0;
    } else if (
      w === 'and' &&
      total + current >= 100 &&
      below === 0 &&
      i + 1 < words.length &&
      (words[i + 1].text in UNITS_WORDS || words[i + 1].text in TENS_WORDS)
    ) {
      continue;
    } else {
      break;
    }
  }
  return { value: total + current, end: i };
}

/** Leading zeros and trailing decimal zeros dropped, so "05" and "5", "2.50" and "2.5" compare equal. */
function canonicalNumber(digits: string): string {
  const [whole, fraction] = digits.split('.');
  const w = whole.replace(/^0+(?=\d)/, '');
  const f = (fraction ?? '').replace(/0+$/, '');
  return f ? `${w || '0'}.${f}` : w || '0';
}
