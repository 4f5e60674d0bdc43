// Ages over 89 (Safe Harbor keeps younger ages): a number from 90 with a word that makes it an age
// after it ("92 years old", "a 94-year-old", "91 años", "93 Jahre") or before it ("aged 95", "age
// ninety-one"), and the decade said as such ("in her nineties"). The number alone is the entity.
import { type Candidate, CERTAINTY } from './redaction-spans.js';
import { fold as foldWord } from './spoken-numbers.js';
import type { TextAnalysis } from './text-analysis.js';

// Folded as textWords folds its words (Devanagari vowel signs dropped too), for comparing with them.
const fold = (words: string[]) => new Set(words.map(foldWord));
/** Words after the number: years (old), y/o, in each family. */
const AFTER = fold([
  'years',
  'year',
  'yo',
  'yrs',
  'años',
  'anos',
  'ans',
  'jahre',
  'jahren',
  'jährige',
  'jähriger',
  'jaar',
  'سنة',
  'عاما',
  'عام',
  'سنه',
  'साल',
  'वर्ष',
]);
/** Words before the number. */
const BEFORE = fold(['age', 'aged', 'edad', 'idade', 'âge', 'alter', 'leeftijd', 'عمر', 'عمره', 'عمرها', 'उम्र', 'turned', 'turning']);
const DECADES = fold(['nineties', 'nonagenarian', 'centenarian', 'noventa', 'nonante', 'quatre-vingt-dix', 'neunzig', 'negentig']);
const OLDEST = 130;

export function detectAges(a: TextAnalysis): Candidate[] {
  const out: Candidate[] = [];
  for (const run of a.runs) {
    const age = Number(run.digits);
    if (run.quantity || run.groups.length > 1 || age < 90 || age > OLDEST) continue;
    const after = a.words[run.endWord]?.text;
    const before = a.words[run.firstWord - 1]?.text;
    if ((after !== undefined && AFTER.has(after)) || (before !== undefined && BEFORE.has(before))) {
      out.push({ type: 'age_over_89', start: run.from, end: run.to, certainty: CERTAINTY.cue });
    }
  }
  for (const w of a.words) if (DECADES.has(w.text)) out.push({ type: 'age_over_89', start: w.from, end: w.to, certainty: CERTAINTY.cue });
  return out;
}
