// Names of people and employers. A redactor cannot tell whose name it is (the patient's, a relative's,
// the clinician's), so every person's name goes. Found by context first: an honorific ("Dr. Patel"), an
// introduction ("my name is", "me llamo", "اسمي"), a relation ("my daughter Sarah"), an employer cue
// ("works at"), a name spelled letter by letter ("W-A-S-H..."); then by the lexicon's given names and
// surnames (name-lexicon.ts). Eponyms and drug names are kept (redaction-traps.ts). Name detection is
// English-first: introductions and honorifics exist for every family, relations for the Latin-script
// ones, and the lexicon's names are capitalised words, so Arabic and Hindi names are found after an
// introduction only.
import { EMPLOYER_CUES, HONORIFICS, POSSESSIVES, RELATIONS, STRONG_INTRODUCTIONS, UNCASED_INTRODUCTIONS, WEAK_INTRODUCTIONS } from './name-cues.js';
import { lexiconKind } from './name-lexicon.js';
import { KEPT_REGIONS, US_STATES } from './place-lexicon.js';
import { type Candidate, CERTAINTY, phrasesSource } from './redaction-spans.js';
import { BARE_EPONYMS, DRUG_NAMES, EPONYM_HEADS, SPELLED_ABBREVIATIONS } from './redaction-traps.js';
import { MONTHS, RELATIVE_DAYS } from './safety-lexicon.js';
import { fold } from './spoken-numbers.js';
import { isCapitalised, type TextAnalysis, wordAt } from './text-analysis.js';

const regex = (phrases: readonly string[], tail = '') => new RegExp(phrasesSource(phrases) + tail, 'gu');
const HONORIFIC = regex(HONORIFICS, '\\.?(?=[ \\t]+\\S)');
const STRONG = regex(STRONG_INTRODUCTIONS);
const WEAK = regex(WEAK_INTRODUCTIONS);
const UNCASED = regex(UNCASED_INTRODUCTIONS);
const RELATION = new RegExp(`${phrasesSource(POSSESSIVES)}\\s+${phrasesSource(RELATIONS)}`, 'gu');
const EMPLOYER = regex(EMPLOYER_CUES);
const SPELLED = /(?<![\p{L}\p{N}])(?:\p{L}(?:-\p{L}){2,}|\p{L}(?:\.\s?\p{L}){2,}\.?|\p{Lu}(?: \p{Lu}){2,})(?![\p{L}\p{N}])/gu;

const PARTICLES = new Set([
  'de',
  'del',
  'della',
  'di',
  'da',
  'das',
  'dos',
  'du',
  'van',
  'von',
  'der',
  'den',
  'ter',
  'la',
  'le',
  'bin',
  'ibn',
  'al',
  'el',
  'ben',
]);
const FILLERS = new Set(['um', 'uh', 'er', 'erm']);
const HINDI_VERBS = new Set(['है', 'हैं', 'हूँ', 'हूं', 'था', 'थी'].map(fold));
const NOT_NAMES = new Set([...HONORIFICS, 'i', ...RELATIVE_DAYS, ...Object.keys(MONTHS)].map(fold));

/** Named entities found by name rules, over one analysed text. */
export function detectNames(a: TextAnalysis): Candidate[] {
  const { text, words, lower } = a;
  const out: Candidate[] = [];
  const raw = (i: number) => text.slice(words[i].from, words[i].to);
  const isName = (i: number) => {
    const kind = lexiconKind(words[i].text.replace(/'s$/, ''));
    return kind === 'given' || kind === 'surname';
  };
  const unknown = (i: number) => lexiconKind(words[i].text.replace(/'s$/, '')) === undefined;
  /** After an honorific a state's name is a surname ("Mr. Washington"); a drug or an eponym still is not. */
  const isTrap = (i: number, honorific = false) => {
    const w = words[i].text.replace(/'s?$/, '');
    if (DRUG_NAMES.has(w) || NOT_NAMES.has(w)) return true;
    if (!honorific && (US_STATES.has(w) || KEPT_REGIONS.has(w))) return true;
    if (beforeHead(i)) return true;
    return BARE_EPONYMS.has(w) && /['’]s?$/.test(raw(i));
  };
  /** Whether the capitalised words from `i` end before an eponym's head: "Lou Gehrig's disease", "Epstein-Barr virus". */
  const beforeHead = (i: number) => {
    let j = i + 1;
    while (j < words.length && isCapitalised(raw(j)) && /^[ \t-]+$/.test(text.slice(words[j - 1].to, words[j].from))) j++;
    return j < words.length && EPONYM_HEADS.has(words[j].text);
  };
  /** Capitalised words from `i`, joined by spaces, hyphens or particles: [first, last] word, or null. */
  const capitalisedRun = (i: number, max: number, honorific = false): [number, number] | null => {
    let last = -1;
    for (let j = i; j < words.length && j - i < max + 1; j++) {
      const gap = j === i ? ' ' : text.slice(words[j - 1].to, words[j].from);
      if (!/^[ \t]+$|^-$/.test(gap)) break;
      if (PARTICLES.has(words[j].text) && j > i && j + 1 < words.length && isCapitalised(raw(j + 1))) continue;
      if (!isCapitalised(raw(j)) || isTrap(j, honorific)) break;
      last = j;
    }
    return last === -1 ? null : [i, last];
  };
  const add = (type: Candidate['type'], first: number, last: number, certainty: number) => {
    const end = words[last].to - (/['’]s$/.test(raw(last)) ? 2 : 0);
    out.push({ type, start: words[first].from, end, certainty });
  };
  const after = (m: RegExpMatchArray) => {
    let i = wordAt(words, m.index! + m[0].length);
    while (i < words.length && FILLERS.has(words[i].text)) i++;
    return i;
  };

  for (const m of lower.matchAll(HONORIFIC)) {
    const run = capitalisedRun(after(m), 3, true);
    if (run) add('person_name', run[0], run[1], CERTAINTY.cue);
  }
  for (const m of lower.matchAll(STRONG)) {
    const i = after(m);
    if (i >= words.length || isTrap(i)) continue;
    const run = capitalisedRun(i, 3);
    if (run) add('person_name', run[0], run[1], CERTAINTY.cue);
    else if (isName(i) || unknown(i)) add('person_name', i, i + 1 < words.length && isName(i + 1) ? i + 1 : i, CERTAINTY.cue);
  }
  for (const m of [...lower.matchAll(WEAK), ...lower.matchAll(RELATION)]) {
    let i = after(m);
    while (i < words.length && ['is', 'named', 'called', 'es', 'est', 'ist', 'e'].includes(words[i].text)) i++;
    if (i >= words.length || !(isName(i) || unknown(i))) continue;
    const run = capitalisedRun(i, 3);
    if (run) add('person_name', run[0], run[1], CERTAINTY.cue);
  }
  for (const m of lower.matchAll(UNCASED)) {
    const i = after(m);
    let last = -1;
    for (let j = i; j < Math.min(words.length, i + 3) && !HINDI_VERBS.has(words[j].text); j++) {
      // Arabic writes "and" joined to the next word ("ورقم", and number): the name has ended.
      if (j > i && (!/^\s+$/.test(text.slice(words[j - 1].to, words[j].from)) || words[j].text.startsWith('و'))) break;
      last = j;
    }
    if (last !== -1) add('person_name', i, Math.min(last, i + 1), CERTAINTY.cue);
  }
  for (const m of lower.matchAll(EMPLOYER)) {
    const i = after(m);
    let last = -1;
    for (let j = i; j < words.length && j - i < 6; j++) {
      const gap = j === i ? ' ' : text.slice(words[j - 1].to, words[j].from);
      if (!/^[ \t]+$|^ & $/.test(gap)) break;
      if (j > i && ['of', 'and', 'the'].includes(words[j].text) && j + 1 < words.length && isCapitalised(raw(j + 1))) continue;
      if (!isCapitalised(raw(j)) || DRUG_NAMES.has(words[j].text)) break;
      last = j;
    }
    if (last !== -1) add('organization_name', i, last, CERTAINTY.cue);
  }
  for (let i = 0; i < words.length; i++) {
    if (!isCapitalised(raw(i)) || !isName(i) || isTrap(i)) continue;
    let first = i;
    while (
      first > 0 &&
      /^[ \t]+$/.test(text.slice(words[first - 1].to, words[first].from)) &&
      isCapitalised(raw(first - 1)) &&
      isName(first - 1) &&
      !isTrap(first - 1)
    )
      first--;
    const run = capitalisedRun(i, 3)!;
    add('person_name', first, run[1], CERTAINTY.guess);
    i = run[1];
  }
  for (const m of text.matchAll(SPELLED)) {
    const letters = fold(m[0].replace(/[^\p{L}]/gu, ''));
    if (SPELLED_ABBREVIATIONS.has(letters)) continue;
    // As certain as an introduction, and longer than the introduction's first letter, so it wins.
    out.push({ type: 'person_name', start: m.index, end: m.index + m[0].length, certainty: CERTAINTY.cue });
  }
  return out;
}
