// Where English text says a clinical quantity in words, and how it is written: the formatter's rules
// (smart-format.ts proves each change with the safety check and applies it). A number becomes digits
// only where what surrounds it makes it a quantity:
//   - a unit follows: "twenty five milligrams" → 25 mg, "ninety six percent" → 96%, "ten units" →
//     10 units, "two tablets", "three days", "a forty five year old" → a 45-year-old, "thirty eight
//     point five degrees celsius" → 38.5 °C; a range takes both ends ("five to ten milligrams");
//   - a vital sign, lab value, age or score is named just before it: "heart rate seventy two";
//   - "N over M" is a blood pressure (142/88) after a pressure cue, or when its numbers can only be one;
//   - "N out of M" is a score (7/10) out of five or ten, or after a score cue;
//   - "am", "pm" or "o'clock" follows: "two thirty pm" → 2:30 PM;
//   - a month names a day: "March third twenty twenty four", "the third of March" → March 3, 2024;
//     "since twenty nineteen" → since 2019.
// Everything else stays words: "one of the pills", "the right one", "the second dose", "one day she fell".
import {
  COUNT_UNITS,
  CUE_LINKS,
  DEGREE_SCALES,
  DEGREE_WORDS,
  DURATION_LEADS,
  DURATION_TAILS,
  DURATION_UNITS,
  INSULIN_UNITS,
  MEASURE_UNITS,
  MERIDIEM,
  PER_UNITS,
  PERCENT_WORDS,
  POINT_DETERMINERS,
  PRESSURE_CUES,
  SCORE_CUES,
  VALUE_CUES,
} from './english-quantity-words.js';
import { MONTHS } from './safety-lexicon.js';
import { type TextWord, textWords } from './spoken-numbers.js';
import { type Quantity, quantityAt } from './spoken-quantity.js';
import { writtenNumber } from './written-number.js';

/** A proposed change: the text's [from, to) written as `text`. */
export interface Candidate {
  from: number;
  to: number;
  text: string;
}

interface Rule {
  /** The word after the words the rule read (it may leave them unchanged). */
  end: number;
  candidate?: Candidate;
}

/** A text's words and where its phrases break: a gap holding anything but spaces and hyphens. */
class Words {
  readonly words: TextWord[];
  readonly w: string[];
  readonly phraseEnd: number[];

  constructor(readonly text: string) {
    this.words = textWords(text);
    this.w = this.words.map((x) => x.text);
    this.phraseEnd = new Array<number>(this.words.length);
    for (let i = this.words.length - 1; i >= 0; i--) this.phraseEnd[i] = i + 1 < this.words.length && this.joined(i + 1) ? this.phraseEnd[i + 1] : i + 1;
  }

  gap(i: number): string {
    return this.text.slice(this.words[i - 1].to, this.words[i].from);
  }

  /** Words i-1 and i belong to one phrase. */
  joined(i: number): boolean {
    return i > 0 && /^[\s-]*$/.test(this.gap(i));
  }

  /** Words i-1 and i belong to one sentence. */
  sameSentence(i: number): boolean {
    return i > 0 && !/[.?!;]/.test(this.gap(i));
  }

  candidate(first: number, end: number, text: string, to = this.words[end - 1].to): Candidate {
    return { from: this.words[first].from, to, text };
  }
}

const YEAR_LEADS = new Set(['in', 'since', 'from', 'until', 'till', 'by', 'during', 'before', 'after', 'of']);
/** Months that are also common words ("may", "march"): a date only when written with a capital. */
const AMBIGUOUS_MONTHS = new Set(['may', 'march', 'mar', 'jan', 'sept', 'sep', 'dec', 'oct', 'aug', 'apr', 'jun', 'jul', 'nov', 'feb']);
const RANGE_LINKS = new Set(['to', 'or', 'through']);

export function englishCandidates(text: string): Candidate[] {
  const t = new Words(text);
  const out: Candidate[] = [];
  for (let i = 0; i < t.words.length;) {
    const rule = dateAt(t, i) ?? quantityRuleAt(t, i);
    if (!rule) {
      i++;
      continue;
    }
    if (rule.candidate && rule.candidate.text !== text.slice(rule.candidate.from, rule.candidate.to)) out.push(rule.candidate);
    i = Math.max(rule.end, i + 1);
  }
  return out;
}

function numberAt(t: Words, i: number, limit = t.phraseEnd[i]): Quantity | null {
  if (i >= t.words.length || i >= limit) return null;
  const leadingPoint = !t.joined(i) || !POINT_DETERMINERS.has(t.w[i - 1]);
  const q = quantityAt(t.w, i, limit, leadingPoint);
  // A written number's digits after a separator ("1,000.50") belong to a bigger number: left alone.
  if (q?.written && /\d[.,]$/.test(t.text.slice(0, t.words[i].from))) return null;
  return q;
}

/** A quantity said as one number: a pair of groups only as a hundreds number ("one forty two" is 142). */
const isHundredsPair = (q: Quantity) => !q.pair || (q.pair[0] >= 1 && q.pair[0] <= 9);
const isInteger = (q: Quantity) => /^\d+$/.test(q.value) && !q.ordinal;

function quantityRuleAt(t: Words, i: number): Rule | null {
  const q = numberAt(t, i);
  if (!q) return null;
  if (q.ordinal) return { end: q.end };
  const cue = cueBefore(t, i);
  const rule = pressureAt(t, i, q, cue) ?? scoreAt(t, i, q) ?? timeAt(t, i, q) ?? yearAt(t, i, q) ?? unitRuleAt(t, i, q, cue);
  if (rule) return rule;
  if (cue !== null && isHundredsPair(q) && !(t.w[i] === 'one' && q.end === i + 1) && t.w[q.end] !== 'of') {
    return { end: q.end, candidate: t.candidate(i, q.end, writtenNumber(q.value)) };
  }
  return { end: q.end };
}

/** The cue (VALUE_CUES) the number at word i follows, past up to three link words, or null. */
function cueBefore(t: Words, i: number): string | null {
  let j = i - 1;
  for (let links = 0; j >= 0 && t.sameSentence(j + 1) && CUE_LINKS.has(t.w[j]) && links < 3; links++) j--;
  if (j < 0 || !t.sameSentence(j + 1)) return null;
  const two = j > 0 && t.joined(j) ? `${t.w[j - 1]} ${t.w[j]}` : '';
  if (VALUE_CUES.has(two)) return two;
  return VALUE_CUES.has(t.w[j]) ? t.w[j] : null;
}

function pressureAt(t: Words, i: number, q: Quantity, cue: string | null): Rule | null {
  if (t.w[q.end] !== 'over' || q.end >= t.phraseEnd[i]) return null;
  const d = numberAt(t, q.end + 1);
  if (!d || !isInteger(q) || !isInteger(d) || !isHundredsPair(q) || !isHundredsPair(d)) return null;
  const [systolic, diastolic] = [Number(q.value), Number(d.value)];
  const plausible = systolic >= 50 && systolic <= 300 && diastolic >= 20 && diastolic < systolic;
  if (!(plausible || (cue !== null && PRESSURE_CUES.has(cue) && systolic < 1000 && diastolic < 1000))) return null;
  return { end: d.end, candidate: t.candidate(i, d.end, `${systolic}/${diastolic}`) };
}

function scoreAt(t: Words, i: number, q: Quantity): Rule | null {
  if (t.w[q.end] !== 'out' || t.w[q.end + 1] !== 'of' || q.end + 2 >= t.phraseEnd[i]) return null;
  const scale = numberAt(t, q.end + 2);
  if (!scale || !isInteger(q) || !isInteger(scale) || q.pair || scale.pair) return null;
  const [score, of] = [Number(q.value), Number(scale.value)];
  if (score > of || !(of === 5 || of === 10 || scoreCueBefore(t, i))) return null;
  return { end: scale.end, candidate: t.candidate(i, scale.end, `${score}/${of}`) };
}

function scoreCueBefore(t: Words, i: number): boolean {
  for (let j = i - 1; j >= 0 && j >= i - 5 && t.sameSentence(j + 1); j--) if (SCORE_CUES.has(t.w[j])) return true;
  return false;
}

/** "seven am", "two thirty p.m.", "ten o'clock": hours 1-12, minutes 10-59 (a time said "nine oh five" stays words). */
function timeAt(t: Words, i: number, q: Quantity): Rule | null {
  if (q.written || !isInteger(q)) return null;
  const [hour, minute] = q.pair ?? [Number(q.value), null];
  if (hour < 1 || hour > 12 || (minute !== null && minute > 59)) return null;
  const clock = minute === null ? String(hour) : `${hour}:${minute}`;
  if (t.w[q.end] === "o'clock" && t.joined(q.end)) return { end: q.end + 1, candidate: t.candidate(i, q.end + 1, `${clock} o'clock`) };
  const after = t.words[q.end - 1].to;
  const m = MERIDIEM.exec(t.text.slice(after));
  if (!m) return null;
  // "p.m." ending a sentence keeps its dot as the sentence's full stop.
  const endsSentence = m[0].endsWith('.') && /^(\s+\p{Lu}|\s*$)/u.test(t.text.slice(after + m[0].length));
  const to = after + m[0].length - (endsSentence ? 1 : 0);
  let end = q.end;
  while (end < t.words.length && t.words[end].from < to) end++;
  return { end, candidate: t.candidate(i, end, `${clock} ${m[1].toUpperCase()}M`, to) };
}

/** "since twenty nineteen": a year said as two groups after a word that leads one. */
function yearAt(t: Words, i: number, q: Quantity): Rule | null {
  if (!q.pair || !(q.pair[0] === 19 || q.pair[0] === 20) || !t.joined(i)) return null;
  if (!YEAR_LEADS.has(t.w[i - 1]) && monthAt(t, i - 1) === null) return null;
  return { end: q.end, candidate: t.candidate(i, q.end, q.value) };
}

/**
 * A number and its unit, or a range of two numbers and their unit. Two groups side by side are one
 * number after a cue, or before a plural measure ("six fifty milligrams" is 650 mg); before a singular
 * one they may count tablets ("two twenty milligram tablets"), so they stay words.
 */
function unitRuleAt(t: Words, i: number, q: Quantity, cue: string | null): Rule | null {
  const limit = t.phraseEnd[i];
  if (q.ordinal) return null;
  let high: Quantity | null = null;
  let link = '';
  const rangeLink = t.w[q.end] === 'and' && t.w[i - 1] === 'between' ? 'and' : RANGE_LINKS.has(t.w[q.end]) ? t.w[q.end] : '';
  if (rangeLink && q.end + 1 < limit) {
    high = numberAt(t, q.end + 1);
    if (high?.ordinal) return null;
    link = high ? ` ${rangeLink} ${writtenNumber(high.value)}` : '';
  }
  const last = high ?? q;
  const unit = unitAt(t, last.end, limit, last.value);
  if (!unit) return null;
  const pluralMeasure = unit.kind === 'measure' && /^[a-z]{4,}s$/.test(t.w[last.end]) && !COUNT_UNITS.has(t.w[unit.end] ?? '');
  const pairAllowed = (x: Quantity) => !x.pair || (isHundredsPair(x) && (cue !== null || pluralMeasure));
  if (!pairAllowed(q) || (high && !pairAllowed(high))) return null;
  if (unit.kind === 'duration' && !high && t.w[i] === 'one' && q.end === i + 1) {
    const lead = t.joined(i) && DURATION_LEADS.has(t.w[i - 1]);
    if (!lead && !DURATION_TAILS.has(t.w[unit.end] ?? '')) return null;
  }
  const low = writtenNumber(q.value);
  const text = unit.kind === 'age' && !high ? `${low}-${unit.text}` : `${low}${link}${unit.separator}${unit.text}`;
  return { end: unit.end, candidate: t.candidate(i, unit.end, text) };
}

interface Unit {
  text: string;
  end: number;
  separator: string;
  kind: 'measure' | 'units' | 'percent' | 'count' | 'duration' | 'age' | 'degree';
}

function unitAt(t: Words, j: number, limit: number, value: string): Unit | null {
  if (j >= limit) return null;
  const w = t.w[j];
  const measure = MEASURE_UNITS.get(w);
  if (measure !== undefined) {
    let text = measure;
    let k = j + 1;
    for (; k + 1 < limit && t.w[k] === 'per' && PER_UNITS.has(t.w[k + 1]); k += 2) text += `/${PER_UNITS.get(t.w[k + 1])}`;
    return { text, end: k, separator: ' ', kind: 'measure' };
  }
  const units = value === '1' ? 'unit' : 'units';
  if (INSULIN_UNITS.has(w)) return { text: units, end: j + 1, separator: ' ', kind: 'units' };
  if (w === 'international' && j + 1 < limit && INSULIN_UNITS.has(t.w[j + 1])) return { text: units, end: j + 2, separator: ' ', kind: 'units' };
  if (PERCENT_WORDS.has(w)) return { text: '%', end: j + 1, separator: '', kind: 'percent' };
  if (w === 'per' && t.w[j + 1] === 'cent' && j + 1 < limit) return { text: '%', end: j + 2, separator: '', kind: 'percent' };
  if (COUNT_UNITS.has(w)) return { text: w, end: j + 1, separator: ' ', kind: 'count' };
  if (DURATION_UNITS.has(w)) {
    if (j + 1 < limit && t.w[j + 1] === 'old') {
      return w.endsWith('s')
        ? { text: `${w} old`, end: j + 2, separator: ' ', kind: 'duration' }
        : { text: `${w}-old`, end: j + 2, separator: '', kind: 'age' };
    }
    return { text: w, end: j + 1, separator: ' ', kind: 'duration' };
  }
  const scale = DEGREE_SCALES.get(DEGREE_WORDS.has(w) && j + 1 < limit ? t.w[j + 1] : w);
  if (scale !== undefined) return { text: scale, end: DEGREE_WORDS.has(w) ? j + 2 : j + 1, separator: ' ', kind: 'degree' };
  if (DEGREE_WORDS.has(w)) return { text: w, end: j + 1, separator: ' ', kind: 'degree' };
  return null;
}

/** "March third twenty twenty four", "the 3rd of March": March 3, 2024. */
function dateAt(t: Words, i: number): Rule | null {
  if (monthAt(t, i) !== null) {
    const day = dayAt(t, i + 1, t.phraseEnd[i]);
    if (!day) return null;
    const year = yearAfter(t, day.end);
    const end = year?.end ?? day.end;
    return { end, candidate: t.candidate(i, end, dateText(monthAt(t, i)!, day.value, year?.value)) };
  }
  const first = t.w[i] === 'the' ? i + 1 : i;
  if (first >= t.words.length || (first > i && !t.joined(first))) return null;
  const day = dayAt(t, first, t.phraseEnd[first]);
  if (!day?.ordinal || t.w[day.end] !== 'of' || day.end + 1 >= t.phraseEnd[first]) return null;
  const month = monthAt(t, day.end + 1);
  if (month === null) return null;
  const year = yearAfter(t, day.end + 2);
  const end = year?.end ?? day.end + 2;
  return { end, candidate: t.candidate(i, end, dateText(month, day.value, year?.value)) };
}

/** The month word at i as written (capitalised), or null. */
function monthAt(t: Words, i: number): string | null {
  if (i >= t.words.length || !Object.hasOwn(MONTHS, t.w[i])) return null;
  const raw = t.text.slice(t.words[i].from, t.words[i].to);
  if (AMBIGUOUS_MONTHS.has(t.w[i]) && !/^\p{Lu}/u.test(raw)) return null;
  return raw[0].toUpperCase() + raw.slice(1);
}

function dayAt(t: Words, i: number, limit: number): Quantity | null {
  if (i >= limit) return null;
  const q = quantityAt(t.w, i, limit, false);
  if (!q || q.pair || !/^\d+$/.test(q.value) || Number(q.value) < 1 || Number(q.value) > 31) return null;
  return q;
}

/** A year after a day ("twenty twenty four", "nineteen ninety", "2024"), past one comma; null when none. */
function yearAfter(t: Words, i: number): Quantity | null {
  if (i >= t.words.length || !/^[\s,]*$/.test(t.gap(i))) return null;
  const q = quantityAt(t.w, i, t.phraseEnd[i], false);
  if (!q || q.ordinal || !/^\d{4}$/.test(q.value)) return null;
  const year = Number(q.value);
  if (year < 1900 || year > 2099 || (q.pair && !(q.pair[0] === 19 || q.pair[0] === 20))) return null;
  return q;
}

function dateText(month: string, day: string, year: string | undefined): string {
  return year === undefined ? `${month} ${Number(day)}` : `${month} ${Number(day)}, ${year}`;
}
