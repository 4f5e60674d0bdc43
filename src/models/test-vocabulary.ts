// The text vocabulary of generated test models. Like a real whisper vocabulary it is byte-level: the 256
// single bytes first (so any text can be tokenized), then multi-byte tokens. These mix English and
// medical subwords (with and without a leading space), numbers, whole non-Latin characters and
// fragments of UTF-8 sequences, so that a random model's output exercises both plain ASCII and
// characters split across tokens. Every generated model shares this vocabulary, as real models of
// one family share a tokenizer.
import { mulberry32, type Random32, randomBelow } from './seeded-random.js';

const VOCABULARY_SEED = 0x7e57_70c5;

/** GPT-2's byte order: printable Latin-1 bytes first, then the rest (controls, space, 0x7f-0xa0, 0xad). */
export function byteTokenOrder(): number[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const rest: number[] = [];
  for (let b = 0; b < 256; b++) if (!printable.includes(b)) rest.push(b);
  return [...printable, ...rest];
}

// A word list reads as a paragraph, not one word a line.
// prettier-ignore
const COMMON_WORDS = [
  'the', 'and', 'of', 'to', 'a', 'in', 'is', 'that', 'it', 'for', 'was', 'on', 'with', 'as', 'he', 'she',
  'they', 'we', 'you', 'I', 'be', 'at', 'by', 'this', 'have', 'from', 'or', 'not', 'but', 'are', 'had',
  'an', 'were', 'his', 'her', 'there', 'which', 'no', 'yes', 'so', 'if', 'all', 'will', 'would', 'can',
  'your', 'what', 'about', 'when', 'up', 'out', 'one', 'two', 'three', 'four', 'five', 'ten', 'day',
  'days', 'week', 'weeks', 'time', 'today', 'now', 'then', 'also', 'any', 'some', 'more', 'left', 'right',
  'my', 'fellow', 'Americans', 'ask', 'country', 'do', 'And', 'The', 'So', 'We', 'He', 'She', 'It',
];

// A word list reads as a paragraph, not one word a line.
// prettier-ignore
const MEDICAL_WORDS = [
  'patient', 'patients', 'pain', 'chest', 'blood', 'pressure', 'heart', 'rate', 'mg', 'dose', 'daily',
  'twice', 'tablet', 'history', 'diagnosis', 'symptoms', 'fever', 'cough', 'nausea', 'vomiting',
  'abdominal', 'tenderness', 'bilateral', 'lungs', 'clear', 'auscultation', 'murmur', 'edema', 'denies',
  'reports', 'allergies', 'medication', 'medications', 'prescribed', 'follow', 'exam', 'normal',
  'acute', 'chronic', 'hypertension', 'diabetes', 'mellitus', 'insulin', 'metformin', 'lisinopril',
  'atorvastatin', 'aspirin', 'ibuprofen', 'amoxicillin', 'infection', 'fracture', 'MRI', 'CT', 'scan',
  'x-ray', 'ECG', 'EKG', 'labs', 'glucose', 'hemoglobin', 'creatinine', 'sodium', 'potassium', 'BP',
  'pulse', 'oxygen', 'saturation', 'respiratory', 'cardiac', 'renal', 'hepatic', 'neurological',
  'surgery', 'procedure', 'biopsy', 'tumor', 'lesion', 'mass', 'node', 'lymph', 'thyroid', 'asthma',
  'COPD', 'pneumonia', 'sepsis', 'stroke', 'seizure', 'migraine', 'anxiety', 'depression', 'plan',
  'assessment', 'subjective', 'objective', 'vitals', 'stable', 'discharge', 'admit', 'ICU', 'ER',
];

// A word list reads as a paragraph, not one word a line.
// prettier-ignore
const SUFFIXES = [
  'ing', 'ed', 'er', 'ers', 'ly', 'tion', 'tions', 'ness', 'ment', 'ity', 'al', 'ic', 'ical', 'ous', 'ive',
  'itis', 'osis', 'emia', 'ectomy', 'otomy', 'ology', 'ologist', 'algia', 'pathy', 'plasty', 'scopy',
  'cardio', 'gastro', 'neuro', 'hyper', 'hypo', 'peri', 'endo', 'intra', 'post', 'pre', 'anti', 'sub',
  's', 'es', "'s", "'t", "'re", "'ll", 'n', 'e', 'a', 'o', 'i', 'th', 'he', 'in', 're', 'on', 'at',
];

const PUNCTUATION = ['.', ',', '?', '!', ':', ';', '-', '--', '...', '"', "'", '(', ')', '),', '.)', '%', '/', ' -', ' (', '."'];

// Whole non-ASCII characters a medical transcript meets: accents, units, typographic marks, Greek.
// A word list reads as a paragraph, not one word a line.
// prettier-ignore
const NON_ASCII_PIECES = [
  'é', 'è', 'ê', 'á', 'à', 'í', 'ó', 'ú', 'ñ', 'ç', 'ü', 'ö', 'ä', 'ß', 'µ', '°', '±', '×', '–', '—',
  '’', '‘', '“', '”', '…', 'α', 'β', 'γ', 'δ', 'Δ', 'μ', 'κ', '€', '²', '³', ' café', ' naïve', ' señor',
  ' µg', ' °C', ' mmHg', ' Müller', ' Ångström', 'мг', ' пациент', '患者', '日本', ' हृदय', ' قلب',
];

// Ranges of code points for random whole characters: Latin-1 letters, Greek, Cyrillic, Devanagari,
// Arabic, CJK, and a 4-byte range (emoji) so that every UTF-8 sequence length appears.
const CODE_POINT_RANGES: Array<[number, number]> = [
  [0xc0, 0xff],
  [0x391, 0x3c9],
  [0x410, 0x44f],
  [0x905, 0x939],
  [0x627, 0x64a],
  [0x4e00, 0x9fa5],
  [0x1f600, 0x1f64f],
];

const CONSONANTS = 'bcdfghjklmnprstvwyz';
const VOWELS = 'aeiou';

export function testVocabulary(count: number): Buffer[] {
  const tokens: Buffer[] = [];
  const seen = new Set<string>();
  const add = (bytes: Buffer) => {
    if (tokens.length >= count || bytes.length === 0) return;
    const key = bytes.toString('latin1');
    if (seen.has(key)) return;
    seen.add(key);
    tokens.push(bytes);
  };
  for (const b of byteTokenOrder()) add(Buffer.from([b]));
  for (const word of [...COMMON_WORDS, ...MEDICAL_WORDS]) {
    add(Buffer.from(` ${word}`));
    add(Buffer.from(word));
  }
  for (const text of [...SUFFIXES, ...PUNCTUATION, ...NON_ASCII_PIECES]) add(Buffer.from(text));
  for (const piece of NON_ASCII_PIECES) {
    // Real byte-level vocabularies hold a character's first bytes as a token of their own.
    const bytes = Buffer.from(piece.trimStart());
    if (bytes.length > 1) add(bytes.subarray(0, bytes.length - 1));
  }

  const random = mulberry32(VOCABULARY_SEED);
  while (tokens.length < count) add(randomToken(random));
  return tokens;
}

function randomToken(random: Random32): Buffer {
  const kind = randomBelow(random, 100);
  const space = randomBelow(random, 100) < 60 ? ' ' : '';
  if (kind < 45) return Buffer.from(space + maybeCapitalized(random, pseudoWord(random)));
  if (kind < 58) {
    const stem = pick(random, [...COMMON_WORDS, ...MEDICAL_WORDS, ...SUFFIXES]);
    return Buffer.from(space + stem + pick(random, SUFFIXES));
  }
  if (kind < 68) {
    const digits = String(randomBelow(random, 10 ** (1 + randomBelow(random, 4))));
    return Buffer.from(space + digits + (randomBelow(random, 4) === 0 ? pick(random, PUNCTUATION) : ''));
  }
  if (kind < 84) return Buffer.from(space + randomCharacters(random, 1 + randomBelow(random, 3)));
  return utf8Fragment(random);
}

function pseudoWord(random: Random32): string {
  const syllables = 1 + randomBelow(random, 3);
  let word = '';
  for (let i = 0; i < syllables; i++) {
    if (randomBelow(random, 4) !== 0) word += CONSONANTS[randomBelow(random, CONSONANTS.length)];
    word += VOWELS[randomBelow(random, VOWELS.length)];
    if (randomBelow(random, 3) === 0) word += CONSONANTS[randomBelow(random, CONSONANTS.length)];
  }
  return word;
}

function maybeCapitalized(random: Random32, word: string): string {
  return randomBelow(random, 10) === 0 ? word[0].toUpperCase() + word.slice(1) : word;
}

function randomCharacters(random: Random32, n: number): string {
  const [lo, hi] = CODE_POINT_RANGES[randomBelow(random, CODE_POINT_RANGES.length)];
  let text = '';
  for (let i = 0; i < n; i++) text += String.fromCodePoint(lo + randomBelow(random, hi - lo + 1));
  return text;
}

/** A random slice of the bytes of non-ASCII text: most such slices start or end inside a character. */
function utf8Fragment(random: Random32): Buffer {
  const bytes = Buffer.from(randomCharacters(random, 1 + randomBelow(random, 3)));
  const start = randomBelow(random, bytes.length);
  let end = start + 1 + randomBelow(random, bytes.length - start);
  if (start === 0 && end === bytes.length) end -= 1; // never the whole text
  return bytes.subarray(start, Math.max(end, start + 1));
}

function pick<T>(random: Random32, items: readonly T[]): T {
  return items[randomBelow(random, items.length)];
}
