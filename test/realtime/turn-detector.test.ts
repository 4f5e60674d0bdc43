// Endpointing decisions (src/realtime/turn-detector.ts) on speech regions as the VAD reports them.
import t from 'tap';

import { DEFAULT_ENDPOINTING as E, turnState } from '../../src/realtime/turn-detector.js';

t.test('silence, speaking, pausing, ended: by the silence after the last speech', async (t) => {
  t.same(turnState([], 3), { kind: 'silence' });
  t.same(turnState([{ start: 0.5, end: 2 }], 2.1), { kind: 'speaking', speechStart: 0.5, speechEnd: 2 });
  t.same(turnState([{ start: 0.5, end: 2 }], 2.01 + E.candidateSilence), { kind: 'pausing', speechStart: 0.5, speechEnd: 2 });
  t.same(turnState([{ start: 0.5, end: 2 }], 2.01 + E.finalSilence), { kind: 'ended', speechStart: 0.5, speechEnd: 2, cut: 2 });
  t.same(
    turnState(
      [
        { start: 0.5, end: 1 },
        { start: 1.2, end: 2.9 },
      ],
      3,
    ),
    { kind: 'speaking', speechStart: 0.5, speechEnd: 2.9 },
    'a short pause inside a turn is not its end',
  );
});

t.test('a turn past the limit ends at its latest pause, or where it stands', async (t) => {
  const regions = [
    { start: 0, end: 9 },
    { start: 9.4, end: 19 },
    { start: 19.2, end: 20.5 },
  ];
  t.same(turnState(regions, 20.6), { kind: 'ended', speechStart: 0, speechEnd: 19, cut: 19.2 });
  t.same(turnState([{ start: 0, end: 20.5 }], 20.6), { kind: 'ended', speechStart: 0, speechEnd: 20.5, cut: 20.6 }, 'no pause at all: cut at the end');
  t.ok(E.candidateSilence < E.finalSilence);
});
