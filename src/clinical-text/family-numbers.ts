// Spoken numbers of the families other than English read as digits, the counterpart of
// spoken-numbers.ts: "ciento cuarenta y dos" → 142, "doscientos cincuenta mil" → 250000,
// "zweihundertfünfzigtausend" → 250000, "siete coma cinco" → 7.5. A number is the longest phrase of
// its family's table (number-word-tables.ts), then scale words with what they multiply, each scale
// smaller than the last, then an optional decimal word and the digits said after it. Unlike English,
// neighbouring numbers are not joined ("cinco cinco" is two numbers): these families say a number as
// one cardinal, so joining would invent values. Digits in the text are read as they are written.
import { type NumberFamily, type NumberWordTable, numberWordTable } from './number-word-tables.js';
import type { SpokenItem, TextWord } from './spoken-numbers.js';

/** A number read from the words: its value as digits, the separator said for its point, and its extent. */
export interface FamilyNumber {
  whole: string;
  fraction: string;
  /** '.' or ',' as the speaker said it ("punto", "coma"); null when no decimal was said. */
  separator: '.' | ',' | null;
  /** Words [start, end) of the reading. */
  start: number;
  end: number;
  /** Whether any of its words is a number word (not only digits). */
  spoken: boolean;
}

/** The phrases that name a percentage with a number word inside ("por ciento": ciento is 100). */
const PERCENT_PHRASES: Partial<Record<NumberFamily, [string, string]>> = {
  es: ['por', 'ciento'],
  pt: ['por', 'cento'],
  fr: ['pour', 'cent'],
};

/** The words with every number read, as spoken-numbers.ts's readNumbers gives them for English. */
export function readFamilyNumbers(words: TextWord[], family: NumberFamily): SpokenItem[] {
  const items: SpokenItem[] = [];
  let i = 0;
  while (i < words.length) {
    if (isPercentPhrase(words, i, family)) {
      items.push({ kind: 'word', text: '%', from: words[i].from, to: words[i + 1].to });
      i += 2;
      continue;
    }
    const n = familyNumberAt(words, i, family);
    if (n === null) {
      items.push({ kind: 'word', text: words[i].text, from: words[i].from, to: words[i].to });
      i++;
      continue;
    }
    items.push({ kind: 'number', value: canonical(n), from: words[n.start].from, to: words[n.end - 1].to });
    i = n.end;
  }
  return items;
}

export function isPercentPhrase(words: TextWord[], i: number, family: NumberFamily): boolean {
  const phrase = PERCENT_PHRASES[family];
  return phrase !== undefined && words[i]?.text === phrase[0] && words[i + 1]?.text === phrase[1];
}

/** The number starting at word `i`, or null when none does. */
export function familyNumberAt(words: TextWord[], i: number, family: NumberFamily): FamilyNumber | null {
  const digits = /^\p{N}+(?:\.\p{N}+)?$/u.test(words[i].text) ? words[i].text : null;
  if (digits !== null) {
    const [whole, fraction = ''] = digits.split('.');
    return { whole, fraction, separator: fraction ? '.' : null, start: i, end: i + 1, spoken: false };
  }
  const table = numberWordTable(family);
  const whole = wholeAt(words, i, table);
  if (whole === null) return null;
  const decimal = fractionAt(words, whole.end, table);
  return {
    whole: String(whole.value),
    fraction: decimal?.digits ?? '',
    separator: decimal?.separator ?? null,
    start: i,
    end: decimal?.end ?? whole.end,
    spoken: true,
  };
}

function wholeAt(words: TextWord[], start: number, table: NumberWordTable): { value: number; end: number } | null {
  let total = 0;
  let lastScale = Infinity;
  let i = start;
  for (;;) {
    const part = partAt(words, i, table, i > start);
    const bare = part === null && i === start ? scaleOf(words[i], table) : null;
    if (bare !== null) {
      // A scale said without a multiplier at the start (Arabic "مليون"): one of it.
      total = bare;
      lastScale = bare;
      i++;
      continue;
    }
    if (part === null) break;
    if (part.scale !== undefined && part.scale < lastScale) {
      // A compound that ends in its scale ("negenennegentigduizend"): what follows is added to it.
      total += part.value;
      lastScale = part.scale;
      i = part.end;
      continue;
    }
    const scale = scaleOf(words[part.end], table);
    if (scale !== null && scale < lastScale && part.value > 0 && part.value < 1000) {
      total += part.value * scale;
      lastScale = scale;
      i = part.end + 1;
      continue;
    }
    if (part.value >= lastScale) break;
    total += part.value;
    i = part.end;
    break;
  }
  // A scale said alone ("millón" after nothing) is not a number; "mil" alone is in the table.
  return i === start ? null : { value: total, end: i };
}

/** The longest table phrase at word `i` (a compound word split at its scale), or null. */
function partAt(words: TextWord[], i: number, table: NumberWordTable, afterScale: boolean): { value: number; end: number; scale?: number } | null {
  if (i >= words.length) return null;
  let from = i;
  if (afterScale && table.connector !== null && words[i].text === table.connector && i + 1 < words.length) from = i + 1;
  const phrase = longestPhraseAt(words, from, table, afterScale);
  if (phrase !== null) return phrase;
  const compound = compoundValue(words[from].text, table);
  if (compound === null) return null;
  return { value: compound.value, end: from + 1, scale: compound.remainder === 0 ? compound.scale : undefined };
}

function longestPhraseAt(words: TextWord[], i: number, table: NumberWordTable, afterScale: boolean): { value: number; end: number } | null {
  for (let k = Math.min(table.longestPhrase, words.length - i); k >= 1; k--) {
    const spelt = words.slice(i, i + k).map((w) => w.text);
    if (afterScale && table.attachedConnector !== null && spelt[0].startsWith(table.attachedConnector)) {
      const bare = table.phrases.get([spelt[0].slice(table.attachedConnector.length), ...spelt.slice(1)].join(' '));
      if (bare !== undefined) return { value: bare, end: i + k };
    }
    const value = table.phrases.get(spelt.join(' '));
    if (value !== undefined) return { value, end: i + k };
  }
  return null;
}

/** A German or Dutch compound holding a scale ("zweihundertfünfzigtausendfünf"), or null. */
function compoundValue(word: string, table: NumberWordTable): { value: number; scale: number; remainder: number } | null {
  for (const [scaleWord, scale] of table.scales) {
    const at = word.lastIndexOf(scaleWord);
    if (at <= 0) continue;
    const head = word.slice(0, at);
    const multiplier = table.phrases.get(head) ?? compoundValue(head, table)?.value;
    const rest = word.slice(at + scaleWord.length);
    const remainder = rest === '' ? 0 : table.phrases.get(rest);
    if (multiplier === undefined || remainder === undefined || multiplier <= 0) continue;
    if (multiplier >= 1000 || remainder >= scale) continue;
    return { value: multiplier * scale + remainder, scale, remainder };
  }
  return null;
}

function scaleOf(word: TextWord | undefined, table: NumberWordTable): number | null {
  return word === undefined ? null : (table.scales.get(word.text) ?? null);
}

/** "coma cinco", "punto veinticinco", "komma null fünf": the digits said after a decimal word. */
function fractionAt(words: TextWord[], i: number, table: NumberWordTable): { digits: string; separator: '.' | ','; end: number } | null {
  const separator = words[i] ? table.decimalWords.get(words[i].text) : undefined;
  if (separator === undefined) return null;
  let digits = '';
  let at = i + 1;
  for (;;) {
    const part = at < words.length ? longestPhraseAt(words, at, table, false) : null;
    if (part === null || part.value >= 1000) break;
    digits += String(part.value);
    at = part.end;
  }
  return digits === '' ? null : { digits, separator, end: at };
}

/** As spoken-numbers.ts writes a value: no leading zeros on the whole part, no trailing zeros after the point. */
export function canonical(n: Pick<FamilyNumber, 'whole' | 'fraction'>): string {
  const whole = n.whole.replace(/^0+(?=\d)/, '') || '0';
  const fraction = n.fraction.replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}
