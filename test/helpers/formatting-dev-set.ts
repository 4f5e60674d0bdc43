// The smart_format dev set (test/fixtures/formatting/dev-set.jsonl) and how it is scored, shared by its
// test and `npm run bench -- formatting`: exact matches, and value changes (sentences whose numbers,
// units, dates, negations or laterality read differently after formatting; the bar is 0).
import { readFileSync } from 'node:fs';

import { safetyFacts, sameFacts } from '../../src/clinical-text/safety-facts.js';
import { formatText } from '../../src/clinical-text/smart-format.js';

export interface DevSentence {
  spoken: string;
  written: string;
  family: string;
  source: 'template' | 'hand';
}

export interface DevSetScore {
  sentences: number;
  exact: number;
  valueChanges: number;
  /** Sentences that must stay as they are, and those that did. */
  unchanged: number;
  unchangedKept: number;
  misses: Array<{ spoken: string; written: string; got: string }>;
}

export function devSet(): DevSentence[] {
  const text = readFileSync(new URL('../fixtures/formatting/dev-set.jsonl', import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as DevSentence);
}

export function scoreDevSet(sentences: readonly DevSentence[]): DevSetScore {
  const score: DevSetScore = { sentences: sentences.length, exact: 0, valueChanges: 0, unchanged: 0, unchangedKept: 0, misses: [] };
  for (const s of sentences) {
    const got = formatText(s.spoken, { language: 'en' }).text;
    if (got === s.written) score.exact++;
    else score.misses.push({ spoken: s.spoken, written: s.written, got });
    if (!sameFacts(safetyFacts(s.spoken), safetyFacts(got))) score.valueChanges++;
    if (s.spoken === s.written) {
      score.unchanged++;
      if (got === s.spoken) score.unchangedKept++;
    }
  }
  return score;
}
