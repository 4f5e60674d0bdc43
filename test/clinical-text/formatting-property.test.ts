// smart_format never writes a number other than the one said: thousands of spoken quantities from a
// seeded generator (doses with every unit, decimals, thousands, pressures, clock times, scores, ages),
// each formatted and its written form parsed back here, by this test's own reading, to the value
// that was spoken. The written form must also keep the safety rules: a leading zero, no trailing
// zero, a comma between thousands from 1,000 up.
import t from 'tap';

import { safetyFacts, sameFacts } from '../../src/clinical-text/safety-facts.js';
import { formatText } from '../../src/clinical-text/smart-format.js';
import { spokenCardinal, spokenDecimal, spokenHundreds } from '../fixtures/formatting/spoken-english.js';

let seed = 4646;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = seed;
  x = Math.imul(x ^ (x >>> 15), x | 1);
  x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
}
const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];

const UNITS: Array<[string, string, string]> = [
  ['milligram', 'milligrams', 'mg'],
  ['microgram', 'micrograms', 'mcg'],
  ['gram', 'grams', 'g'],
  ['kilogram', 'kilograms', 'kg'],
  ['milliliter', 'milliliters', 'mL'],
  ['liter', 'liters', 'L'],
  ['unit', 'units', 'units'],
  ['percent', 'percent', '%'],
  ['millimole per liter', 'millimoles per liter', 'mmol/L'],
  ['centimeter', 'centimeters', 'cm'],
  ['millisecond', 'milliseconds', 'ms'],
];

/** A spoken amount and its value as canonical decimal digits ("0.5", "1500"). */
function spokenAmount(): { spoken: string; value: string } {
  const kind = random();
  if (kind < 0.5) {
    const n = pick([int(0, 20), int(21, 999), int(1000, 999_999)]);
    return { spoken: spokenCardinal(n, random() < 0.3), value: String(n) };
  }
  const whole = pick([0, int(1, 9), int(10, 999)]);
  const digits = String(int(0, 999)).padStart(int(1, 3), '0');
  const fraction = digits.replace(/0+$/, '');
  const wholeWords = whole === 0 ? pick(['zero point', 'point']) : `${spokenCardinal(whole)} point`;
  return { spoken: `${wholeWords} ${spokenDecimal(digits)}`, value: fraction ? `${whole}.${fraction}` : String(whole) };
}

/** This test's reading of a written amount: digits, commas between thousands, a fraction without trailing zeros. */
function readWritten(written: string): string | null {
  const m = /^(0|[1-9]\d{0,2}(?:,\d{3})*|[1-9]\d{0,2})(?:\.(\d*[1-9]))?$/.exec(written);
  if (!m) return null;
  const whole = m[1].replace(/,/g, '');
  if (Number(whole) >= 1000 !== m[1].includes(',')) return null;
  return m[2] ? `${whole}.${m[2]}` : whole;
}

t.test('5,000 spoken doses: each written as its value and its safe unit', async (t) => {
  let wrong = 0;
  const failures: string[] = [];
  for (let k = 0; k < 5000; k++) {
    const { spoken, value } = spokenAmount();
    const [one, many, unit] = pick(UNITS);
    const said = `give ${spoken} ${value === '1' ? one : many} today`;
    const got = formatText(said, { language: 'en' }).text;
    const m = /^give (\S+?)( ?)(mg|mcg|g|kg|mL|L|units?|%|mmol\/L|cm|ms) today$/.exec(got);
    const expectedUnit = unit === 'units' && value === '1' ? 'unit' : unit;
    // "96%" is written closed up; every other unit after a space.
    if (!m || readWritten(m[1]) !== value || m[3] !== expectedUnit || m[2] !== (unit === '%' ? '' : ' ')) {
      wrong++;
      if (failures.length < 5) failures.push(`${said} → ${got}`);
    }
  }
  t.equal(wrong, 0, failures.join('\n'));
});

t.test('2,000 pressures, clock times, scores and ages: read back as said', async (t) => {
  const failures: string[] = [];
  for (let k = 0; k < 500; k++) {
    const s = int(60, 250);
    const d = int(30, s - 1);
    const said = `blood pressure ${random() < 0.5 ? spokenHundreds(s) : spokenCardinal(s)} over ${spokenCardinal(d)}`;
    const got = formatText(said, { language: 'en' }).text;
    if (got !== `blood pressure ${s}/${d}`) failures.push(`${said} → ${got}`);
  }
  for (let k = 0; k < 500; k++) {
    const h = int(1, 12);
    const m = int(10, 59);
    const meridiem = pick(['am', 'pm', 'a.m.', 'p.m.']);
    const said = `seen at ${spokenCardinal(h)} ${spokenCardinal(m)} ${meridiem} today`;
    const got = formatText(said, { language: 'en' }).text;
    if (got !== `seen at ${h}:${m} ${meridiem[0].toUpperCase()}M today`) failures.push(`${said} → ${got}`);
  }
  for (let k = 0; k < 500; k++) {
    const of = pick([5, 10]);
    const n = int(0, of);
    const said = `pain ${spokenCardinal(n)} out of ${spokenCardinal(of)}`;
    const got = formatText(said, { language: 'en' }).text;
    if (got !== `pain ${n}/${of}`) failures.push(`${said} → ${got}`);
  }
  for (let k = 0; k < 500; k++) {
    const n = int(2, 110);
    const said = `a ${spokenCardinal(n)} year old man`;
    const got = formatText(said, { language: 'en' }).text;
    if (got !== `a ${n}-year-old man`) failures.push(`${said} → ${got}`);
  }
  t.same(failures.slice(0, 5), []);
});

t.test('5,000 word salads of numbers, units, cues and punctuation: never a throw, never a fact changed', async (t) => {
  const vocabulary = [
    ...['one', 'two', 'five', 'twelve', 'twenty', 'forty', 'ninety', 'hundred', 'thousand', 'and', 'point', 'zero', 'oh', 'third', 'first'],
    ...['milligrams', 'milligram', 'units', 'percent', 'per', 'kilogram', 'liter', 'days', 'year', 'old', 'degrees', 'celsius', 'tablets'],
    ...['over', 'out', 'of', 'to', 'or', 'between', 'am', 'p.m.', "o'clock", 'March', 'may', 'the', 'in', 'since', 'blood', 'pressure'],
    ...['heart', 'rate', 'pain', 'score', 'is', 'no', 'not', 'left', 'right', '25', '5.0', '1,000', '2:30', '.5', '-', ',', '.', '/', '%'],
  ];
  const failures: string[] = [];
  for (let k = 0; k < 5000; k++) {
    const said = Array.from({ length: int(1, 12) }, () => pick(vocabulary)).join(pick([' ', ' ', ' ', '-']));
    try {
      const got = formatText(said, { language: 'en' }).text;
      if (!sameFacts(safetyFacts(said), safetyFacts(got))) failures.push(`${said} → ${got}`);
    } catch (error) {
      failures.push(`${said}: ${(error as Error).message}`);
    }
  }
  t.same(failures.slice(0, 5), []);
});
