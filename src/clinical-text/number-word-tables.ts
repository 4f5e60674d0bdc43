// Spoken cardinal numbers of the families other than English, as tables a reader looks words up in.
// Each family's numbers below ten thousand are spelt by n2words (a maintained number-to-words library
// for all eight families), so the irregular parts (Hindi's hundred words for 0-99, French's
// quatre-vingt-dix-neuf, German and Dutch compounds) come from one tested source rather than typed
// here; what is added by hand are the variants n2words does not print (apocopes such as "veintiún",
// Brazilian spellings, Belgian French) and the scale words that compose larger numbers. Built on first
// use, once per family. Everything is accent-folded and lower case, as spoken-numbers.ts reads words.
import { toCardinal as arabic } from 'n2words/ar-SA';
import { toCardinal as german } from 'n2words/de-DE';
import { toCardinal as spanish } from 'n2words/es-ES';
import { toCardinal as belgianFrench } from 'n2words/fr-BE';
import { toCardinal as french } from 'n2words/fr-FR';
import { toCardinal as hindi } from 'n2words/hi-IN';
import { toCardinal as dutch } from 'n2words/nl-NL';
import { toCardinal as portuguese } from 'n2words/pt-PT';

import type { LanguageFamily } from '../domain/language-families.js';
import { fold } from './spoken-numbers.js';

export type NumberFamily = Exclude<LanguageFamily, 'en'>;

export interface NumberWordTable {
  /** A number's words (folded, single spaces) to its value, for every value below ten thousand. */
  phrases: Map<string, number>;
  /** The most words one phrase has. */
  longestPhrase: number;
  /** Words that multiply what comes before them ("mil", "tausend", "लाख"), largest first when read. */
  scales: Map<string, number>;
  /** The word that says the decimal point, and the separator a written number uses for it. */
  decimalWords: Map<string, '.' | ','>;
  /** A word that may join a scale to what follows it (Portuguese "dez mil e quinhentos"). */
  connector: string | null;
  /** A prefix that joins the word after a scale (Arabic "و"). */
  attachedConnector: string | null;
}

/** Values below this are spelt by n2words: every form that can appear without a scale word after it. */
const TABLE_LIMIT = 10_000;

interface FamilySource {
  spell: Array<(n: number) => string>;
  variants: Record<string, number>;
  scales: Record<string, number>;
  decimalWords: Record<string, '.' | ','>;
  connector?: string;
  attachedConnector?: string;
  /** Another way the same words are said, or null (German drops the "ein" of "einhundert"). */
  alsoSaid?: (spelt: string) => string | null;
}

const SOURCES: Record<NumberFamily, FamilySource> = {
  es: {
    spell: [spanish],
    variants: { un: 1, una: 1, veintiun: 21, veintiuna: 21, 'diez y seis': 16, cien: 100 },
    scales: { mil: 1000, millon: 1e6, millones: 1e6 },
    decimalWords: { coma: ',', punto: '.' },
  },
  pt: {
    spell: [portuguese],
    variants: { uma: 1, duas: 2, dezesseis: 16, dezessete: 17, dezenove: 19, duzentas: 200, trezentas: 300, quatrocentas: 400, quinhentas: 500 },
    scales: { mil: 1000, milhao: 1e6, milhoes: 1e6 },
    decimalWords: { virgula: ',', ponto: '.' },
    connector: 'e',
  },
  fr: {
    spell: [french, belgianFrench],
    variants: { une: 1, huitante: 80 },
    scales: { mille: 1000, mil: 1000, million: 1e6, millions: 1e6 },
    decimalWords: { virgule: ',', point: '.' },
    // "deux cents", "quatre-vingts" lose their s before another number word: "deux cent mille".
    alsoSaid: (spelt) => (/(cent|vingt)s\b/.test(spelt) ? spelt.replace(/(cent|vingt)s\b/g, '$1') : null),
  },
  de: {
    spell: [german],
    variants: { hundert: 100, tausend: 1000, ein: 1, eine: 1 },
    scales: { tausend: 1000, million: 1e6, millionen: 1e6 },
    decimalWords: { komma: ',', punkt: '.' },
    alsoSaid: (spelt) => (/^ein(hundert|tausend)/.test(spelt) ? spelt.slice(3) : null),
  },
  nl: {
    spell: [dutch],
    variants: { duizend: 1000, honderd: 100 },
    scales: { duizend: 1000, miljoen: 1e6, miljoenen: 1e6 },
    decimalWords: { komma: ',', punt: '.' },
  },
  ar: {
    spell: [arabic],
    variants: { واحدة: 1, اثنتان: 2, اثنين: 2, مائتان: 200, مئتين: 200 },
    scales: { الف: 1000, الفا: 1000, الاف: 1000, مليون: 1e6, مليونا: 1e6, ملايين: 1e6 },
    decimalWords: { فاصلة: '.' },
    attachedConnector: 'و',
  },
  hi: {
    spell: [hindi],
    variants: {},
    scales: { हजार: 1000, लाख: 100_000, करोड: 10_000_000 },
    decimalWords: { दशमलव: '.' },
  },
};

const tables = new Map<NumberFamily, NumberWordTable>();

/** The family's table, built on first use. */
export function numberWordTable(family: NumberFamily): NumberWordTable {
  let table = tables.get(family);
  if (!table) {
    table = buildTable(SOURCES[family]);
    tables.set(family, table);
  }
  return table;
}

/** A number's words as the reader compares them: folded, hyphens as spaces, single spaces. */
export function phraseKey(words: string): string {
  return fold(words)
    .split(/[\s-]+/u)
    .filter((w) => w !== '')
    .join(' ');
}

function buildTable(source: FamilySource): NumberWordTable {
  const phrases = new Map<string, number>();
  for (const spell of source.spell) {
    for (let n = 0; n < TABLE_LIMIT; n++) {
      const spelt = phraseKey(spell(n));
      phrases.set(spelt, n);
      const other = source.alsoSaid?.(spelt);
      if (other) phrases.set(other, n);
    }
  }
  for (const [words, n] of Object.entries(source.variants)) phrases.set(phraseKey(words), n);
  let longestPhrase = 1;
  for (const key of phrases.keys()) longestPhrase = Math.max(longestPhrase, key.split(' ').length);
  return {
    phrases,
    longestPhrase,
    scales: new Map(Object.entries(source.scales).map(([w, n]) => [fold(w), n])),
    decimalWords: new Map(Object.entries(source.decimalWords).map(([w, sep]) => [fold(w), sep])),
    connector: source.connector ?? null,
    attachedConnector: source.attachedConnector ? fold(source.attachedConnector) : null,
  };
}
