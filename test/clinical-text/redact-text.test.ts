// redactText: what each class finds in written and spoken transcripts, what it keeps (drug brands,
// eponyms, doses, vitals, labs, years, ages up to 89), the policies and the substitutions.
import t from 'tap';

import { redactText } from '../../src/clinical-text/redact-text.js';
import { resolvePolicies } from '../../src/clinical-text/redaction-classes.js';

const found = (text: string, policies?: string[]) => redactText(text, { policies }).entities.map((e) => [e.type, text.slice(e.start, e.end)]);

t.test('spoken and written identifiers of each class', async (t) => {
  t.same(found('my cell is five five five, zero one nine two'), [['phone_number', 'five five five, zero one nine two']]);
  t.same(found('Call me at (617) 555-0192.'), [['phone_number', '(617) 555-0192']]);
  t.same(found('my name is W-A-S-H-I-N-G-T-O-N'), [['person_name', 'W-A-S-H-I-N-G-T-O-N']]);
  t.same(found('Mr. Washington has COPD.'), [['person_name', 'Washington']], 'after an honorific, a state is a surname');
  t.same(found('My daughter Sarah drove me.'), [['person_name', 'Sarah']]);
  t.same(found('Date of birth March 3rd, 1950.'), [['date', 'March 3rd, 1950']]);
  t.same(found('I was born on the twenty third of April.'), [['date', 'twenty third of April']]);
  t.same(found('MRN 4471902, 45 years old.'), [['medical_record_number', '4471902']]);
  t.same(found("Social's four one two, five five, nine eight seven six."), [['ssn', 'four one two, five five, nine eight seven six']]);
  t.same(found('She is a 94-year-old woman.'), [['age_over_89', '94']]);
  t.same(found('I live at 42 Oak Street in Springfield.'), [
    ['location', '42 Oak Street'],
    ['location', 'Springfield'],
  ]);
  t.same(found('Email jane.doe@example.com or robert dot smith at gmail dot com'), [
    ['email_address', 'jane.doe@example.com'],
    ['email_address', 'robert dot smith at gmail dot com'],
  ]);
  t.same(found('The VIN is 1HGCM82633A004352, the pump at 10.14.2.201.'), [
    ['vehicle_id', '1HGCM82633A004352'],
    ['ip_address', '10.14.2.201'],
  ]);
  t.same(found('He works at Acme Logistics.'), [['organization_name', 'Acme Logistics']]);
});

t.test('the traps stay', async (t) => {
  for (const text of [
    "She takes Eliquis 5 milligrams and Lasix 40 mg for Crohn's disease and Parkinson's.",
    'Glasgow Coma Scale 15, blood pressure 120 over 80, 140/90, temperature 98.6, sats 95 percent.',
    "A1c 7.2, platelets 250,000, a white count of 12,000, Lou Gehrig's disease, Epstein-Barr virus.",
    'Diagnosed in 2019, on Xarelto since twenty nineteen, for three weeks; a 45-year-old, he is 88 years old.',
    'Her COVID-19 test was negative, H1N1 in 2009, a BRCA1 test, a Foley catheter, Down syndrome.',
    'Give 1,000 milliliters over 8 hours; glucose two hundred and fifty.',
  ]) {
    t.same(found(text), [], text.slice(0, 30));
  }
});

t.test('pattern classes in every family; names after an introduction', async (t) => {
  t.same(found("Je m'appelle Marie Dubois, née le 3 mars 1950, mon numéro est le 06 12 34 56 78."), [
    ['person_name', 'Marie Dubois'],
    ['date', '3 mars 1950'],
    ['phone_number', '06 12 34 56 78'],
  ]);
  t.same(found('Ich bin am 12.03.1950 geboren, Hauptstraße 5.'), [
    ['date', '12.03.1950'],
    ['location', 'Hauptstraße 5'],
  ]);
  t.same(found('اسمي أحمد ورقم هاتفي ٠٧٩١٢٣٤٥٦٧'), [
    ['person_name', 'أحمد'],
    ['phone_number', '٠٧٩١٢٣٤٥٦٧'],
  ]);
  t.same(found('मेरा नाम राहुल शर्मा है और मेरा फोन नंबर 98765 43210 है'), [
    ['person_name', 'राहुल शर्मा'],
    ['phone_number', '98765 43210'],
  ]);
});

t.test('policies select classes; substitutions; offsets are string indices', async (t) => {
  const text = 'Dr. Patel, call 555-019-2834 about the Eliquis.';
  t.same(found(text, ['phone_number']), [['phone_number', '555-019-2834']]);
  t.same(found(text, ['health']), [['medication', 'Eliquis']], 'the health group is opt-in');
  t.equal(redactText(text).text, 'Dr. [PERSON_NAME], call [PHONE_NUMBER] about the Eliquis.');
  t.equal(redactText(text, { substitution: 'hash' }).text, 'Dr. ####, call #### about the Eliquis.');
  const emoji = '👋 My daughter Sarah';
  t.same(redactText(emoji).entities, [{ type: 'person_name', start: 15, end: 20 }], 'UTF-16 indices, as JavaScript counts');
  t.ok(resolvePolicies().has('person_name') && !resolvePolicies().has('medication'), 'the default is every identifier class, no health class');
  t.throws(() => redactText(text, { policies: ['phone', 'person_name', 'nope'] }), { name: 'RedactionPolicyError', unknown: ['phone', 'nope'] });
  t.throws(() => redactText(text, { policies: ['constructor'] }), /unknown redaction policy 'constructor'/);
});
