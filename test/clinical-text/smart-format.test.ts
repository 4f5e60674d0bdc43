// smart_format on text (src/clinical-text/smart-format.ts): the example, the medication-safety
// rules of the written form, the words that are not quantities, the safety check refusing a change
// that would alter a number, and the languages it formats or passes through.
import t from 'tap';

import { applyProved, FormatOptionError, FORMATTED_FAMILIES, formatText } from '../../src/clinical-text/smart-format.js';
import { LANGUAGE_FAMILIES } from '../../src/domain/language-families.js';

const en = (text: string) => formatText(text, { language: 'en' }).text;

t.test("the issue's example", async (t) => {
  const said = 'metoprolol twenty five milligrams twice daily, blood pressure one forty two over eighty eight';
  const result = formatText(said, { language: 'en-GB' });
  t.equal(result.text, 'metoprolol 25 mg twice daily, blood pressure 142/88');
  t.same(
    result.changes.map((c) => said.slice(c.from, c.to)),
    ['twenty five milligrams', 'one forty two over eighty eight'],
    'each change names the words it replaced',
  );
  t.equal(result.refused, 0);
});

t.test('safety rules of the written form (Joint Commission, ISMP)', async (t) => {
  t.equal(en('five point zero milligrams'), '5 mg', 'never a trailing zero');
  t.equal(en('5.0 milligrams'), '5 mg', 'also when the engine wrote it');
  t.equal(en('point five milligrams'), '0.5 mg', 'always a leading zero');
  t.equal(en('seventy five micrograms'), '75 mcg', 'mcg, never µg');
  t.equal(en('ten units'), '10 units', '"units" stays a word');
  t.equal(en('10 U'), '10 units', 'U is written out');
  t.equal(en('one unit'), '1 unit');
  t.equal(en('five cc'), '5 mL', 'mL, never cc');
  t.equal(en('two thousand five hundred units'), '2,500 units', 'a comma from 1,000 up');
  t.equal(en('nine hundred fifty milligrams'), '950 mg');
  t.equal(en('fifteen milligrams per kilogram'), '15 mg/kg');
  t.equal(en('four point five millimoles per liter'), '4.5 mmol/L');
});

t.test('quantities of each kind', async (t) => {
  t.equal(en('sats ninety six percent'), 'sats 96%');
  t.equal(en('pain seven out of ten'), 'pain 7/10');
  t.equal(en('a seventy two year old man'), 'a 72-year-old man');
  t.equal(en('cough for two weeks'), 'cough for 2 weeks');
  t.equal(en('at two thirty pm'), 'at 2:30 PM');
  t.equal(en('seen at nine a.m. Then'), 'seen at 9 AM. Then', 'a sentence keeps its full stop');
  t.equal(en('on March third twenty twenty four'), 'on March 3, 2024');
  t.equal(en('on the twenty first of May'), 'on May 21');
  t.equal(en('temperature thirty eight point five degrees celsius'), 'temperature 38.5 °C');
  t.equal(en('heart rate of seventy two'), 'heart rate of 72');
  t.equal(en('sodium one thirty eight'), 'sodium 138');
  t.equal(en('BP one twenty over eighty. Ninety percent on air.'), 'BP 120/80. 90% on air.', 'numbers either side of a full stop are read apart');
});

t.test('words that are not quantities stay words', async (t) => {
  for (const said of [
    'one of the pills',
    'the right one',
    'no known drug allergies',
    'a couple of days',
    'the second dose',
    'one day she fell',
    'at this point five nurses came',
    'you may take two',
    'her number is five five five one two one two',
    'two twenty milligram tablets',
    'alert and oriented times three',
  ]) {
    t.equal(en(said), said, said);
  }
});

t.test('a change the safety check refuses stays words', async (t) => {
  const said = 'give twenty five milligrams';
  const wrong = applyProved(said, [{ from: 5, to: 27, text: '250 mg' }]);
  t.same(wrong, { text: said, changes: [], refused: 1 });
  const unit = applyProved(said, [{ from: 5, to: 27, text: '25 mcg' }]);
  t.equal(unit.text, said, 'a unit changed is refused too');
  const right = applyProved(said, [{ from: 5, to: 27, text: '25 mg' }]);
  t.equal(right.text, 'give 25 mg');
});

t.test('languages: every family formatted by its own words, a bad tag refused', async (t) => {
  t.same(FORMATTED_FAMILIES, LANGUAGE_FAMILIES);
  t.equal(formatText('veinticinco miligramos, twenty five milligrams', { language: 'es' }).text, '25 mg, twenty five milligrams');
  t.equal(formatText('veinticinco miligramos, twenty five milligrams', { language: 'en' }).text, 'veinticinco miligramos, 25 mg');
  const error = t.throws(() => formatText('x', { language: 'klingon' })) as FormatOptionError;
  t.equal(error.field, 'language');
  t.notMatch(error.message, /klingon/, 'never echoes the value');
  t.equal((t.throws(() => formatText(42 as unknown as string, { language: 'en' })) as FormatOptionError).field, 'text');
});

t.test('the same input, the same output; empty text is fine', async (t) => {
  t.same(formatText('', { language: 'en' }), { text: '', changes: [], refused: 0 });
  const said = 'BP one twenty over eighty, pulse seventy.';
  t.same(formatText(said, { language: 'en' }), formatText(said, { language: 'en' }));
});
