// A speaker's turn holds its own short pauses (src/engine/turn-pauses.ts): consecutive turns of one
// voice within the bound become one; turns of another voice between them, or a gap over the bound,
// keep them apart; other voices' turns are never moved; the input is not changed; words keep owners.
import t from 'tap';

import type { SpeakerTurn } from '../../src/engine/speaker-diarizer.js';
import { holdPauses, TURN_PAUSE_SECONDS } from '../../src/engine/turn-pauses.js';
import { voiceAt } from '../../src/pipeline/speaker-attachment.js';

const turn = (speaker: number, start: number, end: number): SpeakerTurn => ({ speaker, start, end });

t.test('consecutive turns of one voice within the bound become one turn', async (t) => {
  t.same(holdPauses([turn(0, 0.5, 2.0), turn(0, 2.3, 4.0), turn(0, 4.9, 6.0)], 1), [turn(0, 0.5, 6.0)], 'a run of three, pauses 0.3 s and 0.9 s');
  t.same(holdPauses([turn(0, 0.5, 2.0), turn(0, 2.0, 3.0)], 1), [turn(0, 0.5, 3.0)], 'touching turns');
  t.same(holdPauses([turn(0, 1.0, 2.0), turn(0, 3.0, 4.0)], 1), [turn(0, 1.0, 4.0)], 'a pause of exactly the bound is held');
  t.same(holdPauses([turn(1, 0.12, 0.71), turn(1, 1.71, 2.5)], 1), [turn(1, 0.12, 2.5)], 'the bound holds in floating point (1.71 - 0.71)');
});

t.test('never across another voice: the other voice keeps its turn, untouched', async (t) => {
  const turns = [turn(0, 0, 1), turn(1, 1.1, 1.3), turn(0, 1.4, 2), turn(1, 2.2, 3), turn(1, 3.5, 4)];
  t.same(holdPauses(turns, 1), [turn(0, 0, 1), turn(1, 1.1, 1.3), turn(0, 1.4, 2), turn(1, 2.2, 4)]);
});

t.test('never over the bound', async (t) => {
  t.same(holdPauses([turn(0, 0, 1), turn(0, 2.01, 3)], 1), [turn(0, 0, 1), turn(0, 2.01, 3)], '1.01 s apart with a bound of 1 s');
  t.same(holdPauses([turn(0, 0, 1), turn(0, 1.5, 3)], 0.3), [turn(0, 0, 1), turn(0, 1.5, 3)], 'the bound given is the bound used');
  t.same(holdPauses([turn(0, 0, 1), turn(0, 1.5, 3)], 0), [turn(0, 0, 1), turn(0, 1.5, 3)], 'a bound of 0 joins only touching turns');
});

t.test('empty input and one turn', async (t) => {
  t.same(holdPauses([], TURN_PAUSE_SECONDS), []);
  t.same(holdPauses([turn(2, 0.4, 0.9)], TURN_PAUSE_SECONDS), [turn(2, 0.4, 0.9)]);
});

t.test('the input is not changed', async (t) => {
  const turns = [turn(0, 0, 1), turn(0, 1.2, 2)];
  const copy = structuredClone(turns);
  const held = holdPauses(turns, TURN_PAUSE_SECONDS);
  t.same(turns, copy);
  t.not(held[0], turns[0], 'new turn objects');
});

// Words attach to the voice whose turns overlap them most, else the nearest turn (speaker-attachment.ts):
// a word in a held pause had its voice's turns on both sides and keeps that voice; only a word running
// from another voice's turn across a turn shorter than itself into the pause can change owner.
t.test('word attachment over held pauses: a word in the pause keeps its voice', async (t) => {
  const raw = [turn(0, 0, 2), turn(0, 2.4, 4), turn(1, 4.6, 6), turn(0, 6.2, 6.3), turn(0, 6.7, 8)];
  const held = holdPauses(raw, TURN_PAUSE_SECONDS);
  t.same(held, [turn(0, 0, 4), turn(1, 4.6, 6), turn(0, 6.2, 8)]);
  const words: Array<[number, number]> = [
    [1.9, 2.1],
    [2.1, 2.35],
    [2.3, 2.5],
    [3.9, 4.2],
    [4.2, 4.5],
    [4.5, 4.8],
    [7, 7.4],
  ];
  for (const [start, end] of words) t.equal(voiceAt(held, start, end), voiceAt(raw, start, end), `[${start}, ${end}]`);
  t.equal(voiceAt(raw, 5.85, 6.45), 1, "before: mostly the other voice's");
  t.equal(voiceAt(held, 5.85, 6.45), 0, 'held: a word across a 0.1 s turn into the pause goes to the pausing voice');
});
