// TextDeltas (src/pipeline/text-deltas.ts): what was told is never taken back; segmentDeltas: a finished text told per segment.
import t from 'tap';

import { segmentDeltas, TextDeltas } from '../../src/pipeline/text-deltas.js';

t.test('deltas extend the text told; empty parts join nothing; a text that stops extending it ends the telling', async (t) => {
  const told: string[] = [];
  const deltas = new TextDeltas((d) => told.push(d));
  deltas.show(['']);
  deltas.show(['The patient']);
  deltas.show(['The patient']);
  deltas.show(['The patient', '']);
  deltas.show(['The patient', 'reports pain.']);
  t.same(told, ['The patient', ' reports pain.'], 'nothing for no change, one space between parts');
  deltas.show(['The patient', 'reported pain.']);
  deltas.show(['The patient', 'reported pain.', 'More.']);
  t.same(told, ['The patient', ' reports pain.'], 'a rewrite is never told, nor anything after it');
});

t.test('segmentDeltas: a finished text told one segment at a time, the deltas adding up to it whatever the segments say', async (t) => {
  const text = 'My name is [PERSON_NAME]. Give 25 mg. Call me at [PHONE_NUMBER].';
  t.same(segmentDeltas(text, [' My name is [PERSON_NAME].', ' Give 25 mg.', ' Call me at [PHONE_NUMBER].']), [
    'My name is [PERSON_NAME].',
    ' Give 25 mg.',
    ' Call me at [PHONE_NUMBER].',
  ]);
  const odd = segmentDeltas(text, ['', ' not in the text', ' Give 25 mg.']);
  t.same(odd, ['My name is [PERSON_NAME]. Give 25 mg.', ' Call me at [PHONE_NUMBER].'], 'a segment not found joins the next delta');
  t.same(segmentDeltas(text, []), [text], 'no segments: the text in one delta');
  t.same(segmentDeltas('', ['x']), [], 'no text: no delta');
});
