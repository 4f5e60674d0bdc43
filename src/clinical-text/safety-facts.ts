// What a text says that neither a vocabulary prompt (pipeline/safety-check.ts) nor the smart
// formatter (smart-format.ts) may change: its numbers (digits or spoken, read by spoken-numbers.ts),
// dose units, date words, negations and laterality, each kind in order. Written forms read as the
// words they stand for, so a formatted text has the facts of what was said: "1,500" is 1500,
// "2:30" is 230 as "two thirty" reads, "°C" is "celsius". Spoken numbers never join across punctuation.
import type { LanguageFamily } from '../domain/language-families.js';
import { readFamilyNumbers } from './family-numbers.js';
import { MEASURE_UNITS, PERCENT_WORDS } from './family-quantity-words.js';
import type { NumberFamily } from './number-word-tables.js';
import { LATERALITY, MONTHS, NEGATIONS, RELATIVE_DAYS, UNITS } from './safety-lexicon.js';
import { readNumbers, type SpokenItem, type TextWord, textWords } from './spoken-numbers.js';

/** What a text says that a prompt or a formatter must not change. */
export interface SafetyFacts {
  number: string[];
  unit: string[];
  date: string[];
  negation: string[];
  laterality: string[];
}

export const FACT_KINDS = ['number', 'unit', 'date', 'negation', 'laterality'] as const;

/**
 * `family`: the language the text is in. English's spoken numbers are read by default (the vocabulary
 * check's reading); another family's are read by its own tables (family-numbers.ts), with its decimal
 * comma, and digits are read in every family.
 */
export function safetyFacts(text: string, family: LanguageFamily = 'en'): SafetyFacts {
  const facts: SafetyFacts = { number: [], unit: [], date: [], negation: [], laterality: [] };
  const items =
    family === 'en'
      ? clauses(readWrittenForms(text)).flatMap(readNumbers)
      : clauses(readFamilyWrittenForms(text)).flatMap((words) => readFamilyNumbers(words, family));
  for (const item of items) {
    if (item.kind === 'number') {
      facts.number.push(item.value);
      continue;
    }
    classify(item, facts);
    if (family !== 'en') classifyFamilyUnit(item, family, facts);
  }
  return facts;
}

/** Whether two texts say the same facts, kind by kind and in order. */
export function sameFacts(a: SafetyFacts, b: SafetyFacts): boolean {
  return FACT_KINDS.every((kind) => a[kind].length === b[kind].length && a[kind].every((x, i) => x === b[kind][i]));
}

/** Written forms as the words they stand for: thousands separators dropped, clock times as spoken, degree signs named. */
function readWrittenForms(text: string): string {
  return text
    .replace(/\b\d{1,3}(?:,\d{3})+(?![\d,])/g, (m) => m.replace(/,/g, ''))
    .replace(/\b(\d{1,2}):(\d{2})\b/g, '$1$2')
    .replace(/°\s?C\b/g, ' celsius')
    .replace(/°\s?F\b/g, ' fahrenheit');
}

/** A decimal comma between digits ("0,5") read as the point it is; these families write no thousands separator. */
function readFamilyWrittenForms(text: string): string {
  return text.replace(/(\d),(\d)/g, '$1.$2');
}

/**
 * The text's words in runs between punctuation: "eighty. Ninety percent" says 80 and 90, not 8090, so
 * a number ending one sentence and one starting the next are read apart, however each is written.
 */
function clauses(text: string): TextWord[][] {
  const runs: TextWord[][] = [];
  let run: TextWord[] = [];
  for (const word of textWords(text)) {
    if (run.length > 0 && /[.,;:!?]/.test(text.slice(run[run.length - 1].to, word.from))) {
      runs.push(run);
      run = [];
    }
    run.push(word);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

function classify(item: Extract<SpokenItem, { kind: 'word' }>, facts: SafetyFacts): void {
  const w = item.text;
  if (w in UNITS) facts.unit.push(UNITS[w]);
  if (w in MONTHS) facts.date.push(`m${MONTHS[w]}`);
  if (RELATIVE_DAYS.has(w)) facts.date.push(w);
  if (NEGATIONS.has(w) || w.endsWith("n't")) facts.negation.push('not');
  if (w in LATERALITY) facts.laterality.push(LATERALITY[w]);
}

function classifyFamilyUnit(item: Extract<SpokenItem, { kind: 'word' }>, family: NumberFamily, facts: SafetyFacts): void {
  const unit = MEASURE_UNITS[family][item.text];
  if (unit !== undefined && !(item.text in UNITS)) facts.unit.push(unit.fact);
  if (PERCENT_WORDS[family].has(item.text)) facts.unit.push('%');
}
