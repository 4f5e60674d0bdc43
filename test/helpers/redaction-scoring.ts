// Token recall and precision of redaction on the labelled development set (test/fixtures/redaction/),
// for its test and `npm run bench -- redaction`. A token is a word of the sentence (the redactor's own
// word reading); it is an identifier token if it overlaps a labelled entity, a keep token if it
// overlaps a labelled trap, and redacted if it overlaps a found entity. Recall and precision overall
// count a token redacted under another class as redacted (it is gone all the same); per class, recall
// is over that class's labelled tokens and precision over the tokens found as that class.
import { readFileSync } from 'node:fs';

import { findEntities } from '../../src/clinical-text/redact-text.js';
import { resolvePolicies } from '../../src/clinical-text/redaction-classes.js';
import { redactionWords } from '../../src/clinical-text/text-analysis.js';
import { DEV_SET_PATH, type DevSentence } from '../fixtures/redaction/generate-dev-set.js';

export interface ClassScore {
  gold: number;
  found: number;
  recall: number;
  precision: number;
}

export interface RedactionScore {
  sentences: number;
  tokens: number;
  gold: number;
  keep: number;
  recall: number;
  precision: number;
  keepLost: number;
  perClass: Record<string, ClassScore>;
  /** Sentence ids with a missed identifier token, a false one, or a lost keep token: for reading, never printed with text. */
  misses: number[];
  falseHits: number[];
  keepHits: number[];
}

export function readDevSet(): DevSentence[] {
  return readFileSync(DEV_SET_PATH, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as DevSentence);
}

const overlaps = (t: { from: number; to: number }, s: { start: number; end: number }) => t.from < s.end && s.start < t.to;
const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);

export function scoreRedaction(sentences: readonly DevSentence[]): RedactionScore {
  const classes = resolvePolicies(['identifiers']);
  const perClass: Record<string, { gold: number; goldHit: number; found: number; foundRight: number }> = {};
  const cls = (c: string) => (perClass[c] ??= { gold: 0, goldHit: 0, found: 0, foundRight: 0 });
  let tokens = 0;
  let gold = 0;
  let goldHit = 0;
  let found = 0;
  let foundRight = 0;
  let keep = 0;
  let keepLost = 0;
  const misses = new Set<number>();
  const falseHits = new Set<number>();
  const keepHits = new Set<number>();
  for (const s of sentences) {
    const entities = findEntities(s.text, classes);
    for (const t of redactionWords(s.text)) {
      tokens++;
      const label = s.entities.find((e) => overlaps(t, e));
      const hit = entities.find((e) => overlaps(t, e));
      if (label) {
        gold++;
        cls(label.type).gold++;
        if (hit) {
          goldHit++;
          cls(label.type).goldHit++;
        } else misses.add(s.id);
      }
      if (hit) {
        found++;
        cls(hit.type).found++;
        if (label) {
          foundRight++;
          cls(hit.type).foundRight++;
        } else falseHits.add(s.id);
      }
      if (s.keep.some((k) => overlaps(t, k))) {
        keep++;
        if (hit) {
          keepLost++;
          keepHits.add(s.id);
        }
      }
    }
  }
  return {
    sentences: sentences.length,
    tokens,
    gold,
    keep,
    recall: ratio(goldHit, gold),
    precision: ratio(foundRight, found),
    keepLost: ratio(keepLost, keep),
    perClass: Object.fromEntries(
      Object.entries(perClass)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([c, v]) => [c, { gold: v.gold, found: v.found, recall: ratio(v.goldHit, v.gold), precision: ratio(v.foundRight, v.found) }]),
    ),
    misses: [...misses],
    falseHits: [...falseHits],
    keepHits: [...keepHits],
  };
}
