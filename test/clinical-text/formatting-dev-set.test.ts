// The smart_format dev set's bars (issue 46): exact matches >= 0.95 of at least 200 spoken clinical
// sentences, sentences that must stay words among them, and no value changed in any sentence.
import t from 'tap';

import { devSet, scoreDevSet } from '../helpers/formatting-dev-set.js';

t.test('dev set: exact >= 0.95, value changes 0', async (t) => {
  const sentences = devSet();
  t.ok(sentences.length >= 200, `${sentences.length} sentences`);
  const score = scoreDevSet(sentences);
  t.ok(score.unchanged >= 30, `${score.unchanged} sentences that must stay as they are`);
  t.equal(score.valueChanges, 0, 'no sentence reads a different number, unit, date, negation or laterality');
  t.ok(score.exact / score.sentences >= 0.95, `exact ${score.exact}/${score.sentences}; misses: ${JSON.stringify(score.misses.slice(0, 5))}`);
  t.equal(score.unchangedKept, score.unchanged, 'what must stay words stays words');
});

t.test('every family of the issue is in the set', async (t) => {
  const families = new Set(devSet().map((s) => s.family));
  for (const family of [
    'dose',
    'decimal dose',
    'blood pressure',
    'vital sign',
    'lab value',
    'percentage',
    'score',
    'age',
    'duration',
    'time',
    'date',
    'thousands',
    'unchanged',
  ]) {
    t.ok(families.has(family), family);
  }
});
