// The English words the smart formatter (english-formatting.ts) reads around a number: units and how
// each is written, and the words that make a bare number a clinical quantity. Written units follow
// ISMP's list of error-prone abbreviations: "mcg" never "µg", "mL" never "cc", "units" never "U" or
// "IU". Every unit here reads as the same unit in the safety lexicon, so the check can prove a change.

const table = (entries: Record<string, string>) => new Map(Object.entries(entries));

/** Measurement units, spoken or written, and their safe abbreviation. */
export const MEASURE_UNITS = table({
  milligram: 'mg',
  milligrams: 'mg',
  mg: 'mg',
  mgs: 'mg',
  microgram: 'mcg',
  micrograms: 'mcg',
  mcg: 'mcg',
  ug: 'mcg',
  gram: 'g',
  grams: 'g',
  g: 'g',
  gm: 'g',
  kilogram: 'kg',
  kilograms: 'kg',
  kilo: 'kg',
  kilos: 'kg',
  kg: 'kg',
  milliliter: 'mL',
  milliliters: 'mL',
  millilitre: 'mL',
  millilitres: 'mL',
  ml: 'mL',
  cc: 'mL',
  ccs: 'mL',
  liter: 'L',
  liters: 'L',
  litre: 'L',
  litres: 'L',
  l: 'L',
  deciliter: 'dL',
  deciliters: 'dL',
  decilitre: 'dL',
  decilitres: 'dL',
  dl: 'dL',
  millimole: 'mmol',
  millimoles: 'mmol',
  mmol: 'mmol',
  milliequivalent: 'mEq',
  milliequivalents: 'mEq',
  meq: 'mEq',
  centimeter: 'cm',
  centimeters: 'cm',
  centimetre: 'cm',
  centimetres: 'cm',
  cm: 'cm',
  millimeter: 'mm',
  millimeters: 'mm',
  millimetre: 'mm',
  millimetres: 'mm',
  mm: 'mm',
  millisecond: 'ms',
  milliseconds: 'ms',
  ms: 'ms',
});

/** Units that may follow "per" after a measurement unit: "milligrams per kilogram per minute" is mg/kg/min. */
export const PER_UNITS = new Map([...MEASURE_UNITS, ...table({ minute: 'min', min: 'min', hour: 'hr', hr: 'hr', day: 'day' })]);

/** "units" stays a word (ISMP: "U" is misread as 0 or 4, "IU" as IV or 10). */
export const INSULIN_UNITS = new Set(['unit', 'units', 'u', 'iu']);

export const PERCENT_WORDS = new Set(['percent', '%']);

/** Things counted in a dose or an observation: the word stays, the number becomes digits. */
export const COUNT_UNITS = new Set([
  'tablet',
  'tablets',
  'tab',
  'tabs',
  'capsule',
  'capsules',
  'pill',
  'pills',
  'puff',
  'puffs',
  'drop',
  'drops',
  'dose',
  'doses',
  'patch',
  'patches',
  'spray',
  'sprays',
  'vial',
  'vials',
  'beats',
  'breaths',
]);

/** Units of a duration (or of an age, before "old"). */
export const DURATION_UNITS = new Set([
  'second',
  'seconds',
  'minute',
  'minutes',
  'hour',
  'hours',
  'day',
  'days',
  'week',
  'weeks',
  'month',
  'months',
  'year',
  'years',
]);

/** The words before a duration that make "one" a quantity ("for one week"), not a phrase ("one day she fell"). */
export const DURATION_LEADS = new Set(['for', 'in', 'over', 'within', 'after', 'past', 'last', 'every', 'about', 'around', 'approximately', 'only', 'than']);
/** The words after a duration that do the same ("one week ago"). */
export const DURATION_TAILS = new Set(['ago', 'old', 'later', 'prior', 'earlier', 'postop', 'duration', 'history']);

export const DEGREE_WORDS = new Set(['degree', 'degrees']);
export const DEGREE_SCALES = table({ celsius: '°C', centigrade: '°C', fahrenheit: '°F' });

/**
 * Words after which a bare number is a vital sign, a lab value, an age or a score ("heart rate
 * seventy two"). Two-word cues are written with a space.
 */
export const VALUE_CUES = new Set([
  'blood pressure',
  'bp',
  'pressure',
  'systolic',
  'pain',
  'diastolic',
  'heart rate',
  'pulse',
  'hr',
  'respiratory rate',
  'resp rate',
  'rr',
  'temperature',
  'temp',
  'sats',
  'saturation',
  'saturations',
  'saturating',
  'satting',
  'spo2',
  'o2',
  'glucose',
  'blood sugar',
  'sugar',
  'sugars',
  'sodium',
  'potassium',
  'chloride',
  'bicarbonate',
  'bicarb',
  'creatinine',
  'bun',
  'urea',
  'hemoglobin',
  'haemoglobin',
  'hgb',
  'hb',
  'hematocrit',
  'platelets',
  'platelet count',
  'white count',
  'wbc',
  'inr',
  'a1c',
  'troponin',
  'lactate',
  'magnesium',
  'calcium',
  'phosphate',
  'albumin',
  'bilirubin',
  'alt',
  'ast',
  'tsh',
  'ldl',
  'hdl',
  'cholesterol',
  'triglycerides',
  'psa',
  'crp',
  'esr',
  'ferritin',
  'bmi',
  'weight',
  'weighs',
  'weighed',
  'height',
  'age',
  'aged',
  'gcs',
  'apgar',
  'score',
  'qtc',
  'ejection fraction',
  'ef',
  'peak flow',
]);

/** Cues after which "N over M" is a blood pressure whatever its numbers. */
export const PRESSURE_CUES = new Set(['blood pressure', 'bp', 'pressure', 'pressures']);

/** Cues after which "N out of M" is a score whatever its scale (a pain score is out of ten without one). */
export const SCORE_CUES = new Set(['score', 'scale', 'pain', 'rated', 'rates', 'rate', 'strength', 'gcs', 'glasgow', 'apgar', 'power']);

/** Words that may stand between a cue and its number ("heart rate is now seventy two"). */
export const CUE_LINKS = new Set([
  'is',
  'was',
  'are',
  'were',
  'of',
  'at',
  'now',
  'today',
  'measured',
  'remains',
  'still',
  'about',
  'around',
  'approximately',
  'down',
  'up',
  'to',
  'back',
]);

/** Words after which "point five" is not a decimal: "at this point five nurses came". */
export const POINT_DETERMINERS = new Set([
  'the',
  'this',
  'that',
  'a',
  'an',
  'which',
  'what',
  'some',
  'any',
  'each',
  'every',
  'another',
  'no',
  'one',
  'same',
  "that's",
]);

/** "am", "p.m.", "PM" after a time: the letters, and a dot that ends the abbreviation. */
export const MERIDIEM = /^\s*([ap])(?:\.\s?m\b\.?|\s?m\b)/i;
