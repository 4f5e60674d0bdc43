// The facts the safety check compares (src/clinical-text/safety-facts.ts) read a written form as the
// words it stands for, which is what lets the formatter prove a change: thousands separators, clock
// times, degree signs, a decimal said without its whole part, compound ordinals, and numbers either
// side of punctuation read apart.
import t from 'tap';

import { safetyFacts, sameFacts } from '../../src/clinical-text/safety-facts.js';

const same = (a: string, b: string) => sameFacts(safetyFacts(a), safetyFacts(b));

t.test('written forms read as what was said', async (t) => {
  t.ok(same('one thousand five hundred milligrams', '1,500 mg'));
  t.ok(same('two thirty pm', '2:30 PM'));
  t.ok(same('thirty eight degrees celsius', '38 °C'));
  t.ok(same('point five milligrams', '0.5 mg'));
  t.ok(same('March twenty third', 'March 23'));
  t.ok(same('millimoles per liter', 'mmol/L'));
  t.ok(same('ten cc', '10 mL'));
  t.ok(same('ten units', '10 U'));
  t.ok(same('forty milliequivalents', '40 mEq'));
});

t.test('what differs still differs', async (t) => {
  t.notOk(same('1,500 mg', '150 mg'));
  t.notOk(same('2:30', '2:03'));
  t.notOk(same('five milligrams', '5 mcg'));
  t.notOk(same('38 °C', '38 °F'));
  t.notOk(same('point five', '5'));
});

t.test('numbers either side of punctuation are read apart', async (t) => {
  t.same(safetyFacts('eighty. Ninety percent').number, ['80', '90']);
  t.same(safetyFacts('one, two, three').number, ['1', '2', '3']);
  t.same(safetyFacts('one twenty over eighty').number, ['120', '80'], 'without punctuation, as before');
});
