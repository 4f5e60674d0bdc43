// One number as said ("twenty five", "one hundred and twenty", "two point five", "point five") or
// written ("25", "2.5", "3rd"), read for the formatter with how it was said, so each rule can refuse
// the forms that are not clearly one number. Two groups side by side ("one forty two", "twenty twenty
// four") read as one number only where a rule says which kind (a pressure, a clock time, a year):
// elsewhere "two twenty milligram tablets" may be 2 x 20 mg, so it stays words.
import { DECIMAL_POINT_WORDS, ORDINAL_WORDS, SCALE_WORDS, TENS_WORDS, UNITS_WORDS } from './safety-lexicon.js';

const own = <T>(table: Record<string, T>, w: string): T | undefined => (Object.hasOwn(table, w) ? table[w] : undefined);
const unitValue = (w: string) => own(UNITS_WORDS, w);
const tensValue = (w: string) => own(TENS_WORDS, w);
const isDigitWord = (w: string | undefined) => w !== undefined && (unitValue(w) ?? 10) < 10;
export const isNumberWord = (w: string) => unitValue(w) !== undefined || tensValue(w) !== undefined || own(SCALE_WORDS, w) !== undefined;

/** A compositional cardinal: its value, the word after it, and whether it is a plain 2-digit group ("forty two", "fifteen"). */
interface Group {
  value: number;
  end: number;
  /** Said without hundred/thousand: a group that may pair with another ("one forty two"). */
  plain: boolean;
  /** Ends with a tens word ("twenty"), so an ordinal unit may complete it ("twenty third"). */
  endsWithTens: boolean;
}

export interface Quantity {
  /** Digits, maybe with a fraction: "0.5", "142", "2.50" (canonical form is the writer's job). */
  value: string;
  end: number;
  /** Two groups side by side, as [first, second] ("one forty two" → [1, 42]); the value is their digits joined. */
  pair?: [number, number];
  ordinal: boolean;
  written: boolean;
}

/**
 * The number at word `i` of `words` (folded words of one phrase, ending at `limit`), or null.
 * `leadingPoint`: "point five" may be read as 0.5 here.
 */
export function quantityAt(words: readonly string[], i: number, limit: number, leadingPoint: boolean): Quantity | null {
  const w = words[i];
  const written = /^(\d+(?:\.\d+)?)(st|nd|rd|th)?$/.exec(w);
  if (written) return { value: written[1], end: i + 1, ordinal: written[2] !== undefined, written: true };
  const ordinal = own(ORDINAL_WORDS, w);
  if (ordinal !== undefined) return { value: String(ordinal), end: i + 1, ordinal: true, written: false };
  if (leadingPoint && DECIMAL_POINT_WORDS.has(w)) return withFraction(words, i, limit, '0');
  if (!isNumberWord(w) || own(SCALE_WORDS, w) !== undefined) return null;
  const first = groupAt(words, i, limit);
  if (first.end < limit) {
    const next = ordinalAfterTens(words, first, limit);
    if (next) return next;
  }
  let result: Quantity = { value: String(first.value), end: first.end, ordinal: false, written: false };
  if (first.end < limit && isNumberWord(words[first.end])) {
    const second = groupAt(words, first.end, limit);
    if (!first.plain || !second.plain || second.value < 10 || second.end === first.end) return null;
    result = { value: `${first.value}${second.value}`, end: second.end, pair: [first.value, second.value], ordinal: false, written: false };
  }
  if (result.end < limit && DECIMAL_POINT_WORDS.has(words[result.end])) {
    const decimal = withFraction(words, result.end, limit, result.value);
    if (decimal) result = { ...decimal, pair: result.pair };
  }
  // A third group ("five five five one") is a string of digits, not a quantity.
  if (result.end < limit && isNumberWord(words[result.end])) return null;
  return result;
}

/** "point" and its digit words after `whole`, or null when no digit follows. */
function withFraction(words: readonly string[], i: number, limit: number, whole: string): Quantity | null {
  let j = i + 1;
  let fraction = '';
  for (; j < limit && isDigitWord(words[j]); j++) fraction += String(unitValue(words[j]));
  if (fraction === '') return null;
  return { value: `${whole}.${fraction}`, end: j, ordinal: false, written: false };
}

/** "twenty third": a tens group completed by an ordinal unit. */
function ordinalAfterTens(words: readonly string[], group: Group, limit: number): Quantity | null {
  if (!group.endsWithTens || group.end >= limit) return null;
  const ordinal = own(ORDINAL_WORDS, words[group.end]);
  if (ordinal === undefined || ordinal >= 10) return null;
  return { value: String(group.value + ordinal), end: group.end + 1, ordinal: true, written: false };
}

/** One cardinal, by the rules the safety check reads it with (spoken-numbers.ts readGroup). */
function groupAt(words: readonly string[], start: number, limit: number): Group {
  let total = 0;
  let current = 0;
  // What the group holds below a hundred: 0 nothing, 1 units/teens, 2 tens (a unit may follow).
  let below = 0;
  let plain = true;
  let endsWithTens = false;
  let i = start;
  for (; i < limit; i++) {
    const w = words[i];
    const u = unitValue(w);
    const t = tensValue(w);
    if (u !== undefined) {
      if (below === 1 || (below === 2 && (u >= 10 || u === 0))) break;
      current += u;
      below = 1;
      endsWithTens = false;
    } else if (t !== undefined) {
      if (below !== 0) break;
      current += t;
      below = 2;
      endsWithTens = true;
    } else if (w === 'hundred') {
      if (i === start || current % 100 === 0 || current >= 100) break;
      current *= 100;
      below = 0;
      plain = false;
      endsWithTens = false;
    } else if (w === 'thousand' || w === 'million') {
      if (i === start || current === 0) break;
      total += current * SCALE_WORDS[w];
      current = 0;
      below = 0;
      plain = false;
      endsWithTens = false;
    } else if (w === 'and' && total + current >= 100 && below === 0 && i + 1 < limit && (unitValue(words[i + 1]) ?? tensValue(words[i + 1])) !== undefined) {
      continue;
    } else {
      break;
    }
  }
  return { value: total + current, end: i, plain: plain && total + current < 100, endsWithTens };
}
