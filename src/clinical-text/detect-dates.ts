// Dates tied to a person (birth, admission, discharge, visit): a month's name with a day or a year
// beside it, in any of the eight families ("March 3rd, 2021", "the fifth of June", "3 de marzo de
// 2021", "le 3 mars", "3. März 2021", "3 maart", "3 مارس 2021", "3 मार्च"), and numeric dates
// ("03/15/2021", "2021-03-15", "15.03.2021"). A year alone, a weekday, "yesterday" and durations are kept:
// Safe Harbor keeps the year, and the others do not date anything by themselves.
import { type Candidate, CERTAINTY } from './redaction-spans.js';
import { ORDINAL_WORDS, TENS_WORDS } from './safety-lexicon.js';
import { fold } from './spoken-numbers.js';
import { isCapitalised, type TextAnalysis } from './text-analysis.js';

const MONTH_NAMES = [
  'january february march april may june july august september october november december',
  'jan feb mar apr jun jul aug sep sept oct nov dec',
  'enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre',
  'janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro',
  'janvier février mars avril mai juin juillet août septembre octobre novembre décembre',
  'januar jänner februar märz april mai juni juli august september oktober november dezember',
  'januari februari maart april mei juni juli augustus september oktober november december',
  'يناير فبراير مارس أبريل ابريل مايو يونيو يوليو أغسطس اغسطس سبتمبر أكتوبر اكتوبر نوفمبر ديسمبر',
  'जनवरी फ़रवरी फरवरी मार्च अप्रैल मई जून जुलाई अगस्त सितंबर सितम्बर अक्टूबर नवंबर नवम्बर दिसंबर दिसम्बर',
];
const MONTHS = new Set(MONTH_NAMES.flatMap((line) => line.split(' ').map(fold)));
/** Month words that are also ordinary English words or names: a month only when capitalised ("May 5", not "may 5"). */
const CASED_MONTHS = new Set(['may', 'march', 'mar', 'jan', 'dec', 'sep', 'oct', 'aug', 'jun', 'jul', 'nov', 'feb', 'apr', 'sept']);
/** Between a day and its month or a month and its year: "of", "de", "del". */
const JOINERS = new Set(['of', 'de', 'del', 'the']);
const ORDINAL_SUFFIX = /^(\d{1,2})(?:st|nd|rd|th|er|e|eme|o|a|º|ª)?$/;

const NUMERIC_DATES = [
  /(?<![\d/.-])(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/-]|\.\d)/g,
  /(?<![\d/.-])(\d{4})([/.-])(\d{1,2})\2(\d{1,2})(?![\d/-]|\.\d)/g,
];

function validNumericDate(m: RegExpMatchArray): boolean {
  const [a, b, c] = [Number(m[1]), Number(m[3]), Number(m[4])];
  if (m[1].length === 4) return b >= 1 && b <= 12 && c >= 1 && c <= 31;
  return a >= 1 && b >= 1 && ((a <= 12 && b <= 31) || (b <= 12 && a <= 31)) && (m[4].length === 2 || (c >= 1800 && c <= 2100));
}

export function detectDates(a: TextAnalysis): Candidate[] {
  const out: Candidate[] = [];
  for (const pattern of NUMERIC_DATES) {
    for (const m of a.text.matchAll(pattern))
      if (validNumericDate(m)) out.push({ type: 'date', start: m.index, end: m.index + m[0].length, certainty: CERTAINTY.shape });
  }
  const runAt = new Map(a.runs.map((r) => [r.firstWord, r]));
  const { words } = a;

  /** The day at word `j` ("3", "3rd", "third", "twenty third", "twenty-five"): the word after it, or -1. */
  const dayAt = (j: number): number => {
    const w = words[j]?.text;
    if (w === undefined) return -1;
    const digits = ORDINAL_SUFFIX.exec(w);
    if (digits) return Number(digits[1]) >= 1 && Number(digits[1]) <= 31 ? j + 1 : -1;
    if (w in ORDINAL_WORDS) return j + 1;
    if ((w === 'twenty' || w === 'thirty') && words[j + 1]?.text in ORDINAL_WORDS && ORDINAL_WORDS[words[j + 1].text] < 10) return j + 2;
    const run = runAt.get(j);
    if (run && run.groups.length === 1 && !run.quantity && Number(run.digits) >= 1 && Number(run.digits) <= 31 && !(w in TENS_WORDS && run.digits.length > 2)) {
      return run.endWord;
    }
    return -1;
  };
  /** The year at word `j` ("2021", "twenty twenty one", "nineteen fifty"): the word after it, or -1. */
  const yearAt = (j: number): number => {
    if (/^(?:18|19|20)\d\d$/.test(words[j]?.text ?? '')) return j + 1;
    const run = runAt.get(j);
    return run && run.digits.length === 4 && /^(?:18|19|20)\d\d$/.test(run.digits) ? run.endWord : -1;
  };
  const gapOk = (from: number, j: number) => j < words.length && /^[\s,.]{0,3}$/.test(a.text.slice(from, words[j].from));

  for (let i = 0; i < words.length; i++) {
    const w = words[i].text;
    if (!MONTHS.has(w)) continue;
    const raw = a.text.slice(words[i].from, words[i].to);
    if (CASED_MONTHS.has(w) && !isCapitalised(raw)) continue;
    let start = words[i].from;
    let end = words[i].to;
    let dated = false;
    // Before the month: "3rd of", "the fifth of", "3 de", "3.".
    let b = i - 1;
    if (b >= 0 && JOINERS.has(words[b].text) && words[b].text !== 'the') b--;
    for (const span of [2, 1]) {
      const d = b - span + 1;
      if (d >= 0 && dayAt(d) === b + 1 && /^[\s.,]{0,3}$/.test(a.text.slice(words[b].to, words[b + 1 === i ? i : b + 1].from))) {
        start = words[d].from;
        dated = true;
        break;
      }
    }
    // After the month: a day, then a year; or a year.
    let j = i + 1;
    if (gapOk(end, j) && yearAt(j) === -1 && dayAt(j) !== -1) {
      const next = dayAt(j);
      end = words[next - 1].to;
      dated = true;
      j = next;
    }
    let y = j;
    let yearGapFrom = end;
    if (y < words.length && JOINERS.has(words[y].text) && words[y].text !== 'the' && gapOk(end, y)) yearGapFrom = words[y++].to;
    if (gapOk(yearGapFrom, y) && yearAt(y) !== -1) {
      end = words[yearAt(y) - 1].to;
      dated = true;
    }
    if (dated) out.push({ type: 'date', start, end, certainty: CERTAINTY.shape });
  }
  return out;
}
