// The retry schedule of the contract: immediately, then 1 min, 5 min, 30 min, 2 h, 8 h, then give up.
import t from 'tap';

import { MAX_ATTEMPTS, nextAttemptAt } from '../../src/webhooks/retry-schedule.js';

t.test('delays after each failed attempt, without jitter', async (t) => {
  const noJitter = () => 0;
  t.equal(MAX_ATTEMPTS, 6);
  t.same(
    [1, 2, 3, 4, 5].map((made) => nextAttemptAt(made, 0, noJitter)),
    [60_000, 300_000, 1_800_000, 7_200_000, 28_800_000],
  );
  t.equal(nextAttemptAt(6, 0, noJitter), null, 'the sixth attempt was the last');
});

t.test('jitter is small: at most 2 % of the delay and never more than a minute', async (t) => {
  const maxJitter = () => 0.999999;
  t.ok(nextAttemptAt(1, 0, maxJitter)! < 60_000 + 1200);
  t.ok(nextAttemptAt(5, 0, maxJitter)! < 28_800_000 + 60_000);
  t.ok(nextAttemptAt(5, 0, maxJitter)! > 28_800_000 + 59_000, 'the cap applies to long delays');
});
