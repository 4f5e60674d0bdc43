// What patterns read: a segment's text with what was said in words read as the characters it stands
// for, and nothing else changed.
//   - a spoken number becomes its digits as said ("one twenty" → 120, "zero five" → 05; spoken-numbers.ts);
//   - two or more spelled letters in a row become capitals ("b p", "m-r-n" → B P, M R N);
//   - "over" and "slash" become "/", "dash" and "hyphen" "-", between two numbers or letters;
//     "percent" becomes "%" after a number;
//   - the space around any of these is a soft gap (pattern-matcher.ts), which a pattern may drop or
//     keep; so are the dots and hyphens between spelled letters. A gap between two numbers may not be
//     dropped.
// Every unit remembers the stretch of text it reads, so a match maps back onto the text it replaces.
// The reading never adds a character: every digit and letter in it is one the text said.
import { spokenNumberAt, textWords } from '../clinical-text/spoken-numbers.js';
import { SOFT_JOINABLE, SOFT_SEPARATING } from './patterns/pattern-matcher.js';

export interface Reading {
  /** Code points, or a soft gap (SOFT_JOINABLE, SOFT_SEPARATING). */
  units: Int32Array;
  /** For each unit, the stretch [from, to) of the text it reads. */
  from: Int32Array;
  to: Int32Array;
  /** 1 at unit i when units i-1 and i read one item together ("98.6" of "ninety eight point six"): no match starts or ends between them. */
  unbreakable: Uint8Array;
}

type ItemKind = 'number' | 'digits' | 'letter' | 'symbol' | 'word';

interface Item {
  kind: ItemKind;
  from: number;
  to: number;
  /** What a read item stands for (number, letter, symbol). */
  reading?: string;
}

const SYMBOL_WORDS: Readonly<Record<string, string>> = { over: '/', slash: '/', dash: '-', hyphen: '-' };
const PERCENT_WORDS = new Set(['percent']);
const LETTER_GAP = /^[\s.-]+$/u;
const SPACE_GAP = /^\s+$/u;

const isRead = (item: Item) => item.kind === 'number' || item.kind === 'letter' || item.kind === 'symbol';
const isNumeric = (item: Item) => item.kind === 'number' || item.kind === 'digits';

export function readText(text: string): Reading {
  const items = itemsOf(text);
  const units: number[] = [];
  const from: number[] = [];
  const to: number[] = [];
  const unbreakable: number[] = [];
  const push = (unit: number, a: number, b: number, inside = false) => {
    units.push(unit);
    from.push(a);
    to.push(b);
    unbreakable.push(inside ? 1 : 0);
  };
  const verbatim = (a: number, b: number) => {
    for (let k = a; k < b;) {
      const cp = text.codePointAt(k)!;
      const width = cp > 0xffff ? 2 : 1;
      push(cp, k, k + width);
      k += width;
    }
  };
  const start = text.length - text.trimStart().length;
  const end = text.trimEnd().length;
  let cursor = start;
  items.forEach((item, k) => {
    const gap = text.slice(cursor, item.from);
    const soft = k > 0 ? softGap(items[k - 1], item, gap) : null;
    if (soft !== null) push(soft, cursor, item.from);
    else verbatim(cursor, item.from);
    if (item.reading !== undefined) Array.from(item.reading).forEach((ch, i) => push(ch.codePointAt(0)!, item.from, item.to, i > 0));
    else verbatim(item.from, item.to);
    cursor = item.to;
  });
  verbatim(cursor, Math.max(cursor, end));
  return { units: Int32Array.from(units), from: Int32Array.from(from), to: Int32Array.from(to), unbreakable: Uint8Array.from(unbreakable) };
}

function softGap(before: Item, after: Item, gap: string): number | null {
  if (before.kind === 'letter' && after.kind === 'letter' && LETTER_GAP.test(gap)) return SOFT_JOINABLE;
  if ((isRead(before) || isRead(after)) && SPACE_GAP.test(gap)) return isNumeric(before) && isNumeric(after) ? SOFT_SEPARATING : SOFT_JOINABLE;
  return null;
}

function itemsOf(text: string): Item[] {
  const words = textWords(text);
  const items: Item[] = [];
  for (let i = 0; i < words.length;) {
    const w = words[i];
    if (/^\p{N}+(?:\.\p{N}+)?$/u.test(w.text)) {
      items.push({ kind: 'digits', from: w.from, to: w.to });
      i++;
      continue;
    }
    const spoken = spokenNumberAt(words, i);
    if (spoken !== null) {
      items.push({ kind: 'number', from: w.from, to: words[spoken.end - 1].to, reading: spoken.value });
      i = spoken.end;
      continue;
    }
    items.push({ kind: 'word', from: w.from, to: w.to });
    i++;
  }
  markLetters(text, items);
  markSymbols(text, items);
  return items;
}

/** Runs of two or more single-letter words, joined by nothing but spaces, dots or hyphens. */
function markLetters(text: string, items: Item[]): void {
  const isLetter = (item: Item) => item.kind === 'word' && /^\p{L}$/u.test(text.slice(item.from, item.to));
  for (let i = 0; i < items.length;) {
    let j = i;
    while (isLetter(items[j] ?? { kind: 'digits', from: 0, to: 0 }) && (j === i || LETTER_GAP.test(text.slice(items[j - 1].to, items[j].from)))) j++;
    if (j - i >= 2) {
      for (let k = i; k < j; k++) items[k] = { ...items[k], kind: 'letter', reading: text.slice(items[k].from, items[k].to).toUpperCase() };
    }
    i = Math.max(j, i + 1);
  }
}

function markSymbols(text: string, items: Item[]): void {
  const spaced = (a: Item, b: Item) => SPACE_GAP.test(text.slice(a.to, b.from));
  const operand = (item: Item | undefined) => item !== undefined && (isNumeric(item) || item.kind === 'letter');
  items.forEach((item, k) => {
    if (item.kind !== 'word') return;
    const word = text.slice(item.from, item.to).toLowerCase();
    const before = items[k - 1];
    const after = items[k + 1];
    if (word in SYMBOL_WORDS && operand(before) && operand(after) && spaced(before, item) && spaced(item, after)) {
      items[k] = { ...item, kind: 'symbol', reading: SYMBOL_WORDS[word] };
    } else if (PERCENT_WORDS.has(word) && before !== undefined && isNumeric(before) && spaced(before, item)) {
      items[k] = { ...item, kind: 'symbol', reading: '%' };
    }
  });
}
