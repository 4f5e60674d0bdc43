// The redaction development set (test/fixtures/redaction/) holds the bars, so a change that
// loses recall or precision, or starts redacting what clinicians keep, fails here: identifier-token
// recall >= 0.97, precision >= 0.90, keep tokens lost <= 0.5 %. `npm run bench -- redaction` prints the
// same figures per class.
import { readFileSync } from 'node:fs';

import t from 'tap';

import { DEV_SET_PATH, devSetLines } from '../fixtures/redaction/generate-dev-set.js';
import { readDevSet, scoreRedaction } from '../helpers/redaction-scoring.js';

t.test('the committed set is what its templates generate, 300 sentences or more', async (t) => {
  t.equal(readFileSync(DEV_SET_PATH, 'utf8'), devSetLines(), 'run: node --import tsx test/fixtures/redaction/generate-dev-set.ts');
  const set = readDevSet();
  t.ok(set.length >= 300, `${set.length} sentences`);
  const classes = new Set(set.flatMap((s) => s.entities.map((e) => e.type)));
  t.ok(classes.size >= 15, `${classes.size} classes labelled`);
  t.ok(
    set.every((s) => s.entities.every((e) => e.start < e.end && e.end <= s.text.length)),
    'labels lie inside their sentences',
  );
});

t.test('recall, precision and keep tokens lost meet the bars', async (t) => {
  const score = scoreRedaction(readDevSet());
  t.ok(score.recall >= 0.97, `recall ${score.recall.toFixed(4)}`);
  t.ok(score.precision >= 0.9, `precision ${score.precision.toFixed(4)}`);
  t.ok(score.keepLost <= 0.005, `keep lost ${score.keepLost.toFixed(4)}`);
  for (const [type, c] of Object.entries(score.perClass)) t.ok(c.recall >= 0.9, `${type}: recall ${c.recall.toFixed(3)} over ${c.gold} tokens`);
});
