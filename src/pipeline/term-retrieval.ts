// Which terms of a long vocabulary (more than MAX_PROMPTED_TERMS) to prompt for one decoding window,
// ranked against what a first, context-free pass heard there. The method:
//   1. the first pass's text is cut into words (spoken-numbers.ts textWords); for a term of k words,
//      every run of k-1, k and k+1 consecutive words is a candidate (so a term heard as one word more
//      or less, "hydro chloro thiazide", still lines up);
//   2. a candidate scores by two distances, each 0 (same) to 1: the normalised edit distance of the
//      phonetic keys (phonetic-key.ts) and the normalised edit distance of the spellings (lower case,
//      spaces removed); its score is their mean;
//   3. a term's score is its best candidate's; terms are ranked by score, ties kept in list order
//      (request terms before the dictionary's), and the best `limit` are prompted.
// The first pass is the window's own context-free decode, so ranking never looks at other windows.
import { textWords } from '../clinical-text/spoken-numbers.js';
import { normalisedEditDistance } from './edit-distance.js';
import { phoneticKey } from './phonetic-key.js';

export interface RankedTerm {
  term: string;
  /** 0 (heard exactly) to 1 (nothing alike). */
  score: number;
}

export function rankTerms(terms: readonly string[], firstPassText: string, limit: number): RankedTerm[] {
  const words = textWords(firstPassText).map((w) => w.text);
  const keys = words.map((w) => phoneticKey(w));
  const ranked = terms.map((term, index) => ({ term, index, score: bestScore(term, words, keys) }));
  ranked.sort((x, y) => x.score - y.score || x.index - y.index);
  return ranked.slice(0, limit).map(({ term, score }) => ({ term, score }));
}

function bestScore(term: string, words: string[], keys: string[]): number {
  const termWords = textWords(term).map((w) => w.text);
  if (termWords.length === 0 || words.length === 0) return 1;
  const termSpelling = termWords.join('');
  const termKey = phoneticKey(term);
  let best = 1;
  for (let span = Math.max(1, termWords.length - 1); span <= termWords.length + 1; span++) {
    for (let start = 0; start + span <= words.length; start++) {
      const spelling = words.slice(start, start + span).join('');
      const key = keys.slice(start, start + span).join('');
      const score = (normalisedEditDistance(termKey, key) + normalisedEditDistance(termSpelling, spelling)) / 2;
      if (score < best) best = score;
      if (best === 0) return 0;
    }
  }
  return best;
}
