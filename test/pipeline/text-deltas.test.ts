// TextDeltas (src/pipeline/text-deltas.ts): what was told is never taken back.
import t from 'tap';
import { TextDeltas } from '../../src/pipeline/text-deltas.js';

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
