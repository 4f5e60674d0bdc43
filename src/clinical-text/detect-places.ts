// Geographic units smaller than a state: street addresses ("1420 Maple Avenue, Apt 3B", "forty two Oak
// Street", "Calle Mayor 12", "12 rue de la Paix", "Hauptstraße 5", "Kerkstraat 12"), P.O. boxes, postal
// codes (after a state or a cue; UK, Canadian, Dutch and Brazilian shapes), and towns and cities: after
// "I live in", "moved to", "vivo en", "j'habite à", "ich wohne in", "ik woon in", "أسكن في", before ", Ohio",
// or known to the lexicon. States and countries are kept, and so is "Glasgow" in the Glasgow Coma Scale.
import { lexiconKind } from './name-lexicon.js';
import { KEPT_REGIONS, NAME_PARTICLES, PLACE_CUES, STATE_CODES, STREET_BEFORE, STREET_SUFFIXES, STREET_TYPES, UNIT_WORDS, US_STATES } from './place-lexicon.js';
import { type Candidate, CERTAINTY, phrasesSource } from './redaction-spans.js';
import { DRUG_NAMES, EPONYM_HEADS } from './redaction-traps.js';
import { MONTHS, RELATIVE_DAYS } from './safety-lexicon.js';
import { isCapitalised, type TextAnalysis, wordAt } from './text-analysis.js';

const CUES = new RegExp(phrasesSource(PLACE_CUES), 'gu');
const NAME = String.raw`\p{Lu}[\p{L}'’-]*`;
/** "Calle Mayor 12" (the street, then its number); "12 rue de la Paix" (French: the number first). */
const NUMBER_AFTER = String.raw`(?<![\p{L}])(?:${STREET_BEFORE})\s+(?:(?:${NAME_PARTICLES})\s+|${NAME}\s*){1,4},?\s*\d{1,5}[a-zA-Z]?\b`;
const NUMBER_FIRST = String.raw`\b\d{1,4},?\s+(?:rue|avenue|boulevard|bd|chemin|allée|impasse|quai|place)\s+(?:(?:${NAME_PARTICLES}|l')\s*|${NAME}\s*){1,5}`;
const STREETS_BEFORE = new RegExp(`${NUMBER_AFTER}|${NUMBER_FIRST}`, 'gu');
const COMPOUND_STREET = new RegExp(String.raw`${NAME}(?:${STREET_SUFFIXES})\s+\d{1,4}[a-z]?\b`, 'gu');
const PO_BOX = /\bP\.?\s?O\.?\s+Box\s+\d+/giu;
const POSTCODES = [
  /\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b/gu, // UK
  /\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\b/gu, // Canada
  /\b\d{4}\s?[A-Z]{2}\b(?=\s+\p{Lu})/gu, // the Netherlands, before the town
  /\b\d{5}-\d{3}\b/gu, // Brazil
  /\b\d{5}\b(?=\s+\p{Lu}\p{Ll})/gu, // France, Germany, Spain..., before the town
];
const NOT_PLACES = new Set([...Object.keys(MONTHS), ...RELATIVE_DAYS]);

export function detectPlaces(a: TextAnalysis): Candidate[] {
  const { text, words } = a;
  const out: Candidate[] = [];
  const raw = (i: number) => text.slice(words[i].from, words[i].to);
  const spaceBefore = (j: number) => j > 0 && /^[ \t]+$/.test(text.slice(words[j - 1].to, words[j].from));
  const add = (start: number, end: number, certainty: number) => out.push({ type: 'location', start, end, certainty });
  const kept = (i: number) => US_STATES.has(words[i].text) || KEPT_REGIONS.has(words[i].text) || DRUG_NAMES.has(words[i].text) || NOT_PLACES.has(words[i].text);

  // Street addresses: a number, up to three capitalised words (or an ordinal: "5th"), a street type, a unit.
  const runEndingAt = new Map(a.runs.map((r) => [r.endWord, r]));
  for (let i = 1; i < words.length; i++) {
    if (!STREET_TYPES.has(words[i].text) || !isCapitalised(raw(i))) continue;
    let first = i;
    while (first - 1 >= 0 && i - first < 3 && spaceBefore(first) && (isCapitalised(raw(first - 1)) || /^\d+(?:st|nd|rd|th)$/.test(words[first - 1].text)))
      first--;
    if (first === i) continue;
    const run = runEndingAt.get(first);
    const cued = first > 0 && ['on', 'at'].includes(words[first - 1].text);
    if (!run && !cued) continue;
    let end = words[i].to + (text[words[i].to] === '.' && /^(?:st|ave|rd|blvd|ln|dr|ct|pl)$/.test(words[i].text) ? 1 : 0);
    const unit = i + 1 < words.length && UNIT_WORDS.has(words[i + 1].text) && /^,?\s+$/.test(text.slice(end, words[i + 1].from)) ? i + 1 : -1;
    if (unit !== -1 && unit + 1 < words.length && /\d/.test(words[unit + 1].text)) end = words[unit + 1].to;
    add(run ? run.from : words[first].from, end, CERTAINTY.pattern);
    // "42 Oak Street in Springfield", "1420 Maple Avenue, Dayton": after an address comes its town.
    let town = wordAt(words, end);
    if (town < words.length && words[town].text === 'in' && /^\s+$/.test(text.slice(end, words[town].from))) town++;
    else if (!/^,\s+$/.test(text.slice(end, words[town]?.from ?? end))) continue;
    let last = -1;
    for (let j = town; j < words.length && j - town < 3 && (j === town || spaceBefore(j)) && isCapitalised(raw(j)) && !kept(j); j++) last = j;
    if (last !== -1) add(words[town].from, words[last].to, CERTAINTY.pattern);
  }
  for (const pattern of [STREETS_BEFORE, COMPOUND_STREET, PO_BOX, ...POSTCODES]) {
    for (const m of text.matchAll(pattern)) add(m.index, m.index + m[0].trimEnd().length, CERTAINTY.pattern);
  }

  // A state after a place ("Dayton, Ohio", "Boston, MA"): the place before it, the ZIP code after it.
  for (let i = 1; i < words.length; i++) {
    const state = US_STATES.has(words[i].text) ? isCapitalised(raw(i)) : STATE_CODES.has(raw(i));
    if (!state) continue;
    if (/^,\s+$/.test(text.slice(words[i - 1].to, words[i].from)) && isCapitalised(raw(i - 1)) && !kept(i - 1)) {
      let first = i - 1;
      while (first > 0 && spaceBefore(first) && isCapitalised(raw(first - 1)) && i - first < 3) first--;
      add(words[first].from, words[i - 1].to, CERTAINTY.pattern);
    }
    const zip = words[i + 1];
    if (zip && /^\d{5}$/.test(zip.text) && /^,?\s+$/.test(text.slice(words[i].to, zip.from))) {
      const plus4 = words[i + 2] && /^\d{4}$/.test(words[i + 2].text) && text.slice(zip.to, words[i + 2].from) === '-';
      add(zip.from, plus4 ? words[i + 2].to : zip.to, CERTAINTY.pattern);
    }
  }

  // After a cue: the capitalised words (scripts without capitals: the next word).
  for (const m of a.lower.matchAll(CUES)) {
    let i = wordAt(words, m.index + m[0].length);
    if (i < words.length && ['the', 'a', 'la', 'el', 'le', 'de'].includes(words[i].text)) i++;
    if (i >= words.length || kept(i)) continue;
    if (!/\p{Lu}|\p{Ll}/u.test(raw(i))) {
      add(words[i].from, words[i].to, CERTAINTY.cue);
      continue;
    }
    let last = -1;
    for (let j = i; j < words.length && j - i < 3 && (j === i || spaceBefore(j)) && isCapitalised(raw(j)) && !kept(j); j++) last = j;
    if (last !== -1) add(words[i].from, words[last].to, CERTAINTY.cue);
  }

  // Cities the lexicon knows, alone or as two or three words ("San Antonio"); "X County".
  for (let i = 0; i < words.length; i++) {
    if (!isCapitalised(raw(i))) continue;
    for (const n of [3, 2, 1]) {
      const last = i + n - 1;
      if (last >= words.length || words.slice(i + 1, last + 1).some((_, k) => !spaceBefore(i + 1 + k) || !isCapitalised(raw(i + 1 + k)))) continue;
      const phrase = words.slice(i, last + 1).map((w) => w.text);
      const city = lexiconKind(phrase.join(' ')) === 'city';
      const county = n > 1 && ['county', 'parish', 'township'].includes(phrase[n - 1]);
      if ((city || county) && !EPONYM_HEADS.has(words[last + 1]?.text ?? '') && !(n === 1 && kept(i))) {
        add(words[i].from, words[last].to, CERTAINTY.guess);
        i = last;
        break;
      }
    }
  }
  return out;
}
