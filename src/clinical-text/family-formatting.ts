// Where a text in a family other than English says a number in words, and how it is written
// (smart-format.ts proves each change with the safety check and applies it). The rules, narrower than
// English's:
//   - a measure unit follows: "veinticinco miligramos" → 25 mg, "null komma fünf Milligramm" → 0,5 mg;
//   - a percentage follows: "noventa y seis por ciento" → 96 %, "zwanzig Prozent" → 20 %;
//   - a blood pressure: "N sobre M" after a pressure cue → 142/88;
//   - otherwise a number of ten or more is written in digits ("quince días" → 15 días), as clinical
//     style guides write numbers from 10, except a round hundred or thousand said as one word ("mil
//     gracias" stays); numbers under ten stay words ("dos pacientes", "una vez") unless a unit follows.
// The decimal separator is the one the speaker said ("coma" ",", "punto" "."), never a thousands
// separator (in these languages either mark may mean either), no trailing zeros, a leading zero always.
import type { Candidate } from './english-formatting.js';
import { type FamilyNumber, familyNumberAt, isPercentPhrase } from './family-numbers.js';
import { COUNT_WORDS, MEASURE_UNITS, PERCENT_WORDS, PRESSURE_WORDS } from './family-quantity-words.js';
import type { NumberFamily } from './number-word-tables.js';
import { type TextWord, textWords } from './spoken-numbers.js';

/** How many words before "N sobre M" a pressure cue may be. */
const CUE_REACH = 5;

export function familyCandidates(text: string, family: NumberFamily): Candidate[] {
  const candidates: Candidate[] = [];
  for (const phrase of phrases(text)) {
    let i = 0;
    while (i < phrase.length) {
      const n = isPercentPhrase(phrase, i, family) ? null : familyNumberAt(phrase, i, family);
      if (n === null) {
        i++;
        continue;
      }
      const rule = quantityAt(phrase, n, family);
      if (rule.candidate) candidates.push(rule.candidate);
      i = rule.end;
    }
  }
  return candidates;
}

function quantityAt(words: TextWord[], n: FamilyNumber, family: NumberFamily): { end: number; candidate?: Candidate } {
  const from = words[n.start].from;
  const next = words[n.end]?.text;
  const unit = next === undefined ? undefined : MEASURE_UNITS[family][next];
  if (unit !== undefined) return change(words, n.end + 1, `${written(n)} ${unit.written}`, from);
  if (isPercentPhrase(words, n.end, family)) return change(words, n.end + 2, `${written(n)} %`, from);
  if (next !== undefined && PERCENT_WORDS[family].has(next)) return change(words, n.end + 1, `${written(n)} %`, from);
  const pressure = pressureAt(words, n, family);
  if (pressure !== null) return change(words, pressure.end, `${written(n)}/${written(pressure)}`, from);
  if (!n.spoken) return { end: n.end };
  const count = next !== undefined && COUNT_WORDS[family].has(next);
  if (count || (Number(n.whole) >= 10 && !isRoundWord(n))) return change(words, n.end, written(n), from);
  return { end: n.end };
}

/** "N sobre M" with a pressure cue shortly before and values a blood pressure can have. */
function pressureAt(words: TextWord[], n: FamilyNumber, family: NumberFamily): FamilyNumber | null {
  const pressure = PRESSURE_WORDS[family];
  if (pressure === null || n.fraction !== '' || !pressure.over.has(words[n.end]?.text)) return null;
  const cued = words.slice(Math.max(0, n.start - CUE_REACH), n.start).some((w) => pressure.cues.has(w.text));
  const diastolic = words[n.end + 1] ? familyNumberAt(words, n.end + 1, family) : null;
  if (!cued || diastolic === null || diastolic.fraction !== '') return null;
  const systolic = Number(n.whole);
  const lower = Number(diastolic.whole);
  return systolic >= 50 && systolic <= 300 && lower >= 20 && lower < systolic ? diastolic : null;
}

/** "cien", "mil", "tausend": a round number said as one word reads as a word, not a quantity. */
function isRoundWord(n: FamilyNumber): boolean {
  return n.end - n.start === 1 && n.fraction === '' && (n.whole === '100' || n.whole === '1000');
}

function change(words: TextWord[], end: number, text: string, from: number): { end: number; candidate: Candidate } {
  return { end, candidate: { from, to: words[end - 1].to, text } };
}

/** The number as written: no trailing zeros after the separator the speaker said, a leading zero always. */
export function written(n: Pick<FamilyNumber, 'whole' | 'fraction' | 'separator'>): string {
  const whole = n.whole.replace(/^0+(?=\d)/, '') || '0';
  const fraction = n.fraction.replace(/0+$/, '');
  return fraction ? `${whole}${n.separator ?? '.'}${fraction}` : whole;
}

/** The text's words in phrases: a gap holding anything but spaces and hyphens ends one. */
function phrases(text: string): TextWord[][] {
  const runs: TextWord[][] = [];
  let run: TextWord[] = [];
  for (const word of textWords(text)) {
    if (run.length > 0 && !/^[\s-]*$/u.test(text.slice(run[run.length - 1].to, word.from))) {
      runs.push(run);
      run = [];
    }
    run.push(word);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}
