// The vocabulary safety check (src/pipeline/safety-check.ts) on recorded decodes: every rule that makes
// a window fall back, one case each, and the cases that must not.
import { readFileSync } from 'node:fs';

import t from 'tap';

import { readNumbers, textWords } from '../../src/clinical-text/spoken-numbers.js';
import { checkSafety, lengthBeyondBound, safetyFacts } from '../../src/pipeline/safety-check.js';

type Case = { free: Array<[string, number, number]>; prompted: Array<[string, number, number]>; safe?: boolean; reasons?: string[] };
const cases = JSON.parse(readFileSync(new URL('../fixtures/vocabulary/check-cases.json', import.meta.url), 'utf8')) as Record<string, Case | string>;

for (const [name, c] of Object.entries(cases)) {
  if (typeof c === 'string') continue;
  t.test(name, async (t) => {
    const verdict = checkSafety(
      c.free.map((s) => s[0]),
      c.prompted.map((s) => s[0]),
    );
    if (c.safe) {
      t.same(verdict, { safe: true, reasons: [] });
    } else {
      t.equal(verdict.safe, false);
      t.same(verdict.reasons, c.reasons);
    }
    // The check is symmetric in what it compares: swapping the texts gives the same verdict.
    t.same(
      checkSafety(
        c.prompted.map((s) => s[0]),
        c.free.map((s) => s[0]),
      ).safe,
      verdict.safe,
    );
  });
}

t.test('a check cut for length fails on length alone', async (t) => {
  t.same(checkSafety([' Fine.'], [' Fine.'], true), { safe: false, reasons: ['length'] });
});

t.test('spoken numbers read as digits, and nothing is invented', async (t) => {
  const values = (text: string) =>
    readNumbers(textWords(text))
      .filter((i) => i.kind === 'number')
      .map((i) => (i as { value: string }).value);
  t.same(values('one hundred and twenty'), ['120']);
  t.same(values('one twenty over eighty'), ['120', '80']);
  t.same(values('twenty twenty four'), ['2024']);
  t.same(values('two point five milligrams'), ['2.5']);
  t.same(values('five five five one two one two'), ['5551212']);
  t.same(values('two thousand and six'), ['2006']);
  t.same(values('the third dose, 05 and 2.50'), ['3', '5', '2.5']);
  t.same(values('no numbers here'), []);
});

t.test('facts: units, dates, negation and laterality are normalised', async (t) => {
  const facts = safetyFacts("No fever. Didn't take 5 mg; 5 milligrams left arm, bilaterally, on January 2nd tomorrow");
  t.same(facts.number, ['5', '5', '2']);
  t.same(facts.unit, ['mg', 'mg']);
  t.same(facts.negation, ['not', 'not']);
  t.same(facts.laterality, ['left', 'bilateral']);
  t.same(facts.date, ['m1', 'tomorrow']);
});

t.test('length bound: small differences never count, ratios do', async (t) => {
  t.equal(lengthBeyondBound(2, 6), false);
  t.equal(lengthBeyondBound(10, 15), false);
  t.equal(lengthBeyondBound(10, 16), true);
  t.equal(lengthBeyondBound(0, 5), true);
});
