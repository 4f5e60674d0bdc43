// The words the vocabulary safety check watches (safety-check.ts): spelt numbers, units, dates,
// negation and laterality. English is complete; the other families carry their negation and
// laterality words and digits (numbers in digits are checked in every language). Everything is
// lower case and accent-folded, as the check compares it.

export const UNITS: Record<string, string> = {
  mg: 'mg', milligram: 'mg', milligrams: 'mg', mgs: 'mg',
  mcg: 'mcg', ug: 'mcg', µg: 'mcg', microgram: 'mcg', micrograms: 'mcg',
  g: 'g', gram: 'g', grams: 'g', gm: 'g',
  kg: 'kg', kilogram: 'kg', kilograms: 'kg', kilo: 'kg', kilos: 'kg',
  ml: 'ml', milliliter: 'ml', milliliters: 'ml', millilitre: 'ml', millilitres: 'ml', cc: 'ml', ccs: 'ml',
  l: 'l', liter: 'l', liters: 'l', litre: 'l', litres: 'l',
  unit: 'unit', units: 'unit', iu: 'unit',
  mmol: 'mmol', millimole: 'mmol', millimoles: 'mmol', meq: 'meq',
  mmhg: 'mmhg', percent: '%', '%': '%',
  tablet: 'tablet', tablets: 'tablet', tab: 'tablet', tabs: 'tablet', capsule: 'capsule', capsules: 'capsule',
  puff: 'puff', puffs: 'puff', drop: 'drop', drops: 'drop',
  hour: 'hour', hours: 'hour', hr: 'hour', hrs: 'hour', minute: 'minute', minutes: 'minute', min: 'minute',
  day: 'day', days: 'day', week: 'week', weeks: 'week', month: 'month', months: 'month', year: 'year', years: 'year',
  bid: 'bid', tid: 'tid', qid: 'qid', qd: 'qd', daily: 'daily', twice: 'twice', once: 'once', prn: 'prn',
};

export const MONTHS: Record<string, number> = {
  january: 1, jan: 1, february: 2, feb: 2, march: 3, mar: 3, april: 4, apr: 4, may: 5, june: 6, jun: 6,
  july: 7, jul: 7, august: 8, aug: 8, september: 9, sep: 9, sept: 9, october: 10, oct: 10,
  november: 11, nov: 11, december: 12, dec: 12,
};

export const RELATIVE_DAYS = new Set([
  'today', 'tomorrow', 'yesterday', 'tonight', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday',
]);

export const NEGATIONS = new Set([
  // English (contractions ending in n't are matched by suffix)
  'no', 'not', 'never', 'none', 'nor', 'neither', 'without', 'denies', 'denied', 'deny', 'denying', 'negative', 'absent', 'nothing', 'cannot',
  // Spanish, Portuguese, Italian, French, German
  'sin', 'nunca', 'niega', 'nao', 'sem', 'nega', 'non', 'senza', 'mai', 'ne', 'pas', 'jamais', 'sans', 'nie', 'kein', 'keine', 'keinen', 'nicht', 'ohne', 'verneint',
]);

export const LATERALITY: Record<string, string> = {
  left: 'left', right: 'right', bilateral: 'bilateral', bilaterally: 'bilateral', both: 'bilateral',
  izquierdo: 'left', izquierda: 'left', derecho: 'right', derecha: 'right',
  esquerdo: 'left', esquerda: 'left', direito: 'right', direita: 'right',
  sinistro: 'left', sinistra: 'left', destro: 'right', destra: 'right',
  gauche: 'left', droit: 'right', droite: 'right',
  links: 'left', linke: 'left', linken: 'left', linker: 'left', rechts: 'right', rechte: 'right', rechten: 'right', rechter: 'right',
};

export const UNITS_WORDS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};

export const TENS_WORDS: Record<string, number> = {
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};

export const SCALE_WORDS: Record<string, number> = { hundred: 100, thousand: 1000, million: 1_000_000 };

export const ORDINAL_WORDS: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10,
  eleventh: 11, twelfth: 12, thirteenth: 13, fourteenth: 14, fifteenth: 15, sixteenth: 16, seventeenth: 17,
  eighteenth: 18, nineteenth: 19, twentieth: 20, thirtieth: 30,
};

/** Words that join the parts of a spoken decimal ("two point five"). */
export const DECIMAL_POINT_WORDS = new Set(['point', 'dot']);
