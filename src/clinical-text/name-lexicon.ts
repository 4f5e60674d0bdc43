// Given names, surnames and cities, from the lexicon of compromise (MIT, maintained, v14): some 3,000
// given names, 900 surnames and 480 cities, many of them not English. Only its lexicon is used, not its
// tagger: tagging took 0.6 to 1.8 s per hour of transcript on a 2-vCPU box, over the bar of 1 % of
// transcribing it (bench/redaction.ts), and our own context rules (cues, honorifics, relations) carry the
// rest. libphonenumber-js was weighed for phone numbers and not taken: it reads no spoken digits, and
// its check against each country's numbering plan drops numbers that are not assigned, which a
// redactor must remove all the same (any identifying number is one).
import { createRequire } from 'node:module';

import type nlpType from 'compromise/two';

import { fold } from './spoken-numbers.js';

export type LexiconKind = 'given' | 'surname' | 'city' | 'word';

let table: Map<string, LexiconKind> | null = null;

/**
 * The lexicon, folded, read once on first use (loading it costs some 200 ms). compromise itself is
 * loaded then too, not at start: a service that never redacts never holds its model (tens of MiB).
 */
function lexicon(): Map<string, LexiconKind> {
  if (table) return table;
  const nlp = createRequire(import.meta.url)('compromise/two') as typeof nlpType;
  const entries = (nlp.model() as { one: { lexicon: Record<string, string | string[]> } }).one.lexicon;
  table = new Map();
  for (const [word, tags] of Object.entries(entries)) {
    const tag = Array.isArray(tags) ? tags[0] : tags;
    const kind: LexiconKind =
      tag === 'FemaleName' || tag === 'MaleName' || tag === 'FirstName' ? 'given' : tag === 'LastName' ? 'surname' : tag === 'City' ? 'city' : 'word';
    table.set(fold(word), kind);
  }
  return table;
}

/** What the lexicon says a folded word or phrase is; undefined when it does not know it. */
export function lexiconKind(folded: string): LexiconKind | undefined {
  return lexicon().get(folded);
}
