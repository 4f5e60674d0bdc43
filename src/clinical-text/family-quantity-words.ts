// The words that make a spoken number a clinical quantity in the families other than English, for
// family-formatting.ts. Measure units are written as their safe abbreviations (ISMP: mcg, never µg;
// mL); units of insulin stay words ("unidades", "Einheiten"), as "units" does in English, and so do
// counts (tablets, days): the number before them is written in digits, the word is kept. Arabic and
// Hindi have no entries yet: their numbers are written in digits by the general rule only.
import type { NumberFamily } from './number-word-tables.js';

/** A measure unit's word (folded) to how it is written and the safety fact it says (safety-lexicon's UNITS values). */
export type MeasureUnits = Readonly<Record<string, { written: string; fact: string }>>;

const mg = { written: 'mg', fact: 'mg' };
const mcg = { written: 'mcg', fact: 'mcg' };
const g = { written: 'g', fact: 'g' };
const kg = { written: 'kg', fact: 'kg' };
const mL = { written: 'mL', fact: 'ml' };
const L = { written: 'L', fact: 'l' };
const cm = { written: 'cm', fact: 'cm' };
const mm = { written: 'mm', fact: 'mm' };

/** Both forms of each word: singular and plural. */
function forms(entries: Array<[string[], { written: string; fact: string }]>): MeasureUnits {
  const units: Record<string, { written: string; fact: string }> = {};
  for (const [words, unit] of entries) for (const w of words) units[w] = unit;
  return units;
}

export const MEASURE_UNITS: Readonly<Record<NumberFamily, MeasureUnits>> = {
  es: forms([
    [['miligramo', 'miligramos'], mg],
    [['microgramo', 'microgramos'], mcg],
    [['gramo', 'gramos'], g],
    [['kilogramo', 'kilogramos', 'kilo', 'kilos'], kg],
    [['mililitro', 'mililitros'], mL],
    [['litro', 'litros'], L],
    [['centimetro', 'centimetros'], cm],
    [['milimetro', 'milimetros'], mm],
  ]),
  pt: forms([
    [['miligrama', 'miligramas'], mg],
    [['micrograma', 'microgramas'], mcg],
    [['grama', 'gramas'], g],
    [['quilograma', 'quilogramas', 'quilo', 'quilos'], kg],
    [['mililitro', 'mililitros'], mL],
    [['litro', 'litros'], L],
    [['centimetro', 'centimetros'], cm],
    [['milimetro', 'milimetros'], mm],
  ]),
  fr: forms([
    [['milligramme', 'milligrammes'], mg],
    [['microgramme', 'microgrammes'], mcg],
    [['gramme', 'grammes'], g],
    [['kilogramme', 'kilogrammes', 'kilo', 'kilos'], kg],
    [['millilitre', 'millilitres'], mL],
    [['litre', 'litres'], L],
    [['centimetre', 'centimetres'], cm],
    [['millimetre', 'millimetres'], mm],
  ]),
  de: forms([
    [['milligramm'], mg],
    [['mikrogramm'], mcg],
    [['gramm'], g],
    [['kilogramm', 'kilo'], kg],
    [['milliliter'], mL],
    [['liter'], L],
    [['zentimeter'], cm],
    [['millimeter'], mm],
  ]),
  nl: forms([
    [['milligram'], mg],
    [['microgram'], mcg],
    [['gram'], g],
    [['kilogram', 'kilo'], kg],
    [['milliliter'], mL],
    [['liter'], L],
    [['centimeter'], cm],
    [['millimeter'], mm],
  ]),
  ar: {},
  hi: {},
};

/** Words after which a number is a count written in digits, the word kept: units of insulin, doses, times. */
export const COUNT_WORDS: Readonly<Record<NumberFamily, ReadonlySet<string>>> = {
  es: new Set(['unidad', 'unidades', 'comprimido', 'comprimidos', 'tableta', 'tabletas', 'pastilla', 'pastillas', 'gota', 'gotas']),
  pt: new Set(['unidade', 'unidades', 'comprimido', 'comprimidos', 'gota', 'gotas']),
  fr: new Set(['unite', 'unites', 'comprime', 'comprimes', 'goutte', 'gouttes']),
  de: new Set(['einheit', 'einheiten', 'tablette', 'tabletten', 'tropfen']),
  nl: new Set(['eenheid', 'eenheden', 'tablet', 'tabletten', 'druppel', 'druppels']),
  ar: new Set(),
  hi: new Set(),
};

/** One-word names of a percentage (the two-word ones are read by family-numbers.ts). */
export const PERCENT_WORDS: Readonly<Record<NumberFamily, ReadonlySet<string>>> = {
  es: new Set(),
  pt: new Set(),
  fr: new Set(),
  de: new Set(['prozent']),
  nl: new Set(['procent']),
  ar: new Set(),
  hi: new Set(),
};

/** "N sobre M" after a pressure cue is a blood pressure, written N/M. */
export const PRESSURE_WORDS: Readonly<Record<NumberFamily, { over: ReadonlySet<string>; cues: ReadonlySet<string> } | null>> = {
  es: { over: new Set(['sobre']), cues: new Set(['presion', 'tension', 'arterial']) },
  pt: { over: new Set(['por']), cues: new Set(['pressao', 'arterial']) },
  fr: { over: new Set(['sur']), cues: new Set(['tension', 'pression', 'arterielle']) },
  de: { over: new Set(['zu', 'uber']), cues: new Set(['blutdruck', 'rr']) },
  nl: { over: new Set(['over']), cues: new Set(['bloeddruk']) },
  ar: null,
  hi: null,
};
