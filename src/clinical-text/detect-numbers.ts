// Identifiers known by their shape alone, with no cue before them: phone numbers (seven to fifteen
// digits in groups, said digit by digit, or after "+"), SSNs (3-2-4), long single numbers and codes
// mixing capitals and digits (any other identifying number), VINs, and ages over 89. What is not an
// identifier keeps its shape too: doses, vitals and lab values are short or decimal, quantities carry
// thousands separators or scale words, years stand alone, ages up to 89 are kept.
import type { NumberRun } from './number-runs.js';
import { type Candidate, CERTAINTY } from './redaction-spans.js';
import { UNITS } from './safety-lexicon.js';
import type { TextAnalysis } from './text-analysis.js';

const isYear = (g: string) => /^(?:19|20)\d\d$/.test(g);

function runType(run: NumberRun): Candidate['type'] | null {
  if (run.quantity || run.groups.every(isYear)) return null;
  const d = run.digits.length;
  if (!run.spoken && run.groups.length === 3 && run.groups.map((g) => g.length).join() === '3,2,4') return 'ssn';
  if (d >= 7 && d <= 15 && (run.groups.length > 1 || run.spoken || run.plus)) return 'phone_number';
  if (d >= 7) return 'other_id';
  return null;
}

/** Codes of capitals and digits ("AB4471902", "MRN-20394", VINs); four digits at least, so COVID-19, H1N1 and BRCA1 stay. */
const CODE = /(?<![\p{L}\p{N}])(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]+(?:-[A-Z0-9]+)*(?![\p{L}\p{N}])/gu;
const VIN = /^[A-HJ-NPR-Z0-9]{17}$/;

export function detectNumbers(a: TextAnalysis): Candidate[] {
  const out: Candidate[] = [];
  for (const run of a.runs) {
    const type = runType(run);
    const unit = a.words[run.endWord]?.text;
    if (type === null || (type === 'other_id' && unit !== undefined && unit in UNITS)) continue;
    out.push({ type, start: run.from, end: run.to, certainty: CERTAINTY.pattern });
  }
  for (const m of a.text.matchAll(CODE)) {
    if (m[0].replace(/\D/g, '').length < 4) continue;
    const type = VIN.test(m[0]) && /[A-Z]/.test(m[0]) ? 'vehicle_id' : 'other_id';
    out.push({ type, start: m.index, end: m.index + m[0].length, certainty: CERTAINTY.pattern });
  }
  return out;
}
