// The DER scorer (test/helpers/diarization-error-rate.ts) on hand-made cases whose answers are known.
import t from 'tap';

import { diarizationErrorRate, type SpeakerTurn } from '../helpers/diarization-error-rate.js';

const turn = (speaker: string, start: number, end: number): SpeakerTurn => ({ speaker, start, end });
const reference = [turn('A', 0, 6), turn('B', 7, 10), turn('A', 11, 14)];

t.test('a perfect hypothesis scores 0, whatever its labels are called', async (t) => {
  t.match(diarizationErrorRate(reference, reference), { der: 0, missed: 0, falseAlarm: 0, confusion: 0 });
  const renamed = reference.map((r) => ({ ...r, speaker: r.speaker === 'A' ? 'spk_1' : 'spk_0' }));
  const score = diarizationErrorRate(reference, renamed);
  t.equal(score.der, 0);
  t.same(score.mapping, { spk_1: 'A', spk_0: 'B' });
});

t.test('one speaker for everything: the shorter speaker is confusion', async (t) => {
  const everyone = [turn('X', 0, 6), turn('X', 7, 10), turn('X', 11, 14)];
  const score = diarizationErrorRate(reference, everyone, 0);
  // A speaks 9 s, B 3 s: X maps to A, and B's 3 s are confused.
  t.equal(score.scored, 12);
  t.equal(score.confusion, 3);
  t.equal(score.der, 3 / 12);
  // With the collar, each reference boundary removes the 0.25 s of speech on its inside (the other
  // side is silence): A keeps 9 - 4 x 0.25 = 8, B 3 - 2 x 0.25 = 2.5.
  const collared = diarizationErrorRate(reference, everyone);
  t.equal(collared.scored, 10.5);
  t.equal(collared.confusion, 2.5);
  t.equal(collared.der, 2.5 / 10.5);
});

t.test('missed speech, false alarms, and boundaries inside the collar', async (t) => {
  t.match(diarizationErrorRate(reference, [], 0), { der: 1, missed: 12, falseAlarm: 0 });
  const extra = [...reference, turn('A', 20, 22)];
  t.match(diarizationErrorRate(reference, extra, 0), { falseAlarm: 2, der: 2 / 12 });
  // Every boundary 0.2 s late: within the 0.25 s collar, no error.
  const late = reference.map((r) => ({ ...r, start: r.start + 0.2, end: r.end + 0.2 }));
  t.equal(diarizationErrorRate(reference, late).der, 0);
  t.ok(diarizationErrorRate(reference, late, 0).der > 0, 'without a collar the same hypothesis errs');
});

t.test('overlapped speech counts once per speaker', async (t) => {
  const overlapping = [turn('A', 0, 4), turn('B', 3, 6)];
  const score = diarizationErrorRate(overlapping, [turn('h1', 0, 4), turn('h2', 4, 6)], 0);
  t.equal(score.scored, 7, '4 s of A and 3 s of B');
  // 3-4 s: two reference speakers, one hypothesis speaker: 1 s missed.
  t.equal(score.missed, 1);
  t.equal(score.der, 1 / 7);
});

t.test('refuses turns that end before they start', async (t) => {
  t.throws(() => diarizationErrorRate([turn('A', 2, 1)], []), RangeError);
});
