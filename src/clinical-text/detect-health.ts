// The optional health classes (policy `health`; off by default, since clinical content is what users
// keep): medications, conditions and procedures, from word endings that name them in English and the
// Latin-script families ("-olol", "-statin", "-itis", "-ectomy") and a short list of common ones. A
// lexicon guess: what it misses stays in the text, so it is no de-identification of clinical content.
import { type Candidate, CERTAINTY } from './redaction-spans.js';
import { DRUG_NAMES } from './redaction-traps.js';
import type { TextAnalysis } from './text-analysis.js';

const MEDICATION_ENDINGS = new RegExp(
  `(?:${[
    'pril sartan olol statin azole prazole cillin mycin cycline floxacin dipine formin gliptin gliflozin mab tinib parin',
    'oxetine triptan azepam olam codone tidine vir semide thiazide lukast sone olone afil',
  ]
    .join(' ')
    .replace(/ /g, '|')})$`,
);
const CONDITION_ENDINGS = /(?:itis|osis|emia|aemia|oma|pathy|algia|plegia|trophy|penia|uria|rrhea|rrhoea|ectasis)$/;
const PROCEDURE_ENDINGS = /(?:ectomy|otomy|ostomy|plasty|scopy|graphy|desis|pexy|rrhaphy)$/;
const CONDITIONS = new Set([
  'diabetes',
  'hypertension',
  'asthma',
  'copd',
  'cancer',
  'depression',
  'anxiety',
  'dementia',
  'stroke',
  'pneumonia',
  'covid',
  'hiv',
  'aids',
  'hepatitis',
  'epilepsy',
  'migraine',
  'obesity',
  'schizophrenia',
  'bipolar',
  'adhd',
  'autism',
  'fibrillation',
  'infarction',
  'sepsis',
  'gout',
  'lupus',
  'psoriasis',
  'eczema',
  'glaucoma',
  'cataract',
]);
const PROCEDURES = new Set([
  'mri',
  'ct',
  'biopsy',
  'dialysis',
  'chemotherapy',
  'radiation',
  'surgery',
  'transplant',
  'intubation',
  'catheterization',
  'ultrasound',
  'x-ray',
  'ekg',
  'ecg',
]);
const SHORTEST = 5;

export function detectHealth(a: TextAnalysis): Candidate[] {
  const out: Candidate[] = [];
  for (const w of a.words) {
    const t = w.text.replace(/'s$/, '');
    const type =
      DRUG_NAMES.has(t) || (t.length >= SHORTEST && MEDICATION_ENDINGS.test(t))
        ? 'medication'
        : PROCEDURES.has(t) || (t.length >= SHORTEST && PROCEDURE_ENDINGS.test(t))
          ? 'medical_procedure'
          : CONDITIONS.has(t) || (t.length >= SHORTEST && CONDITION_ENDINGS.test(t))
            ? 'medical_condition'
            : null;
    if (type) out.push({ type, start: w.from, end: w.to, certainty: CERTAINTY.guess });
  }
  return out;
}
