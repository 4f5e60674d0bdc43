// A worker whose clock runs two minutes ahead (issue 49), in an api process and two workers on
// PostgreSQL and S3: libfaketime preloaded into one worker only. Leases and instance heartbeats are
// judged by the database's clock, so the skewed worker neither takes the other's running jobs nor
// declares the other processes dead: no chunk is claimed twice, every job succeeds exactly once
// (billed once), no request gets a 5xx, and the skewed worker says how far its clock is off.
import t from 'tap';

import { OWN_SHAPE_CASES } from '../helpers/fault-cases.js';
import { assertSurvived } from '../helpers/fault-scenario.js';

t.test('a worker two minutes ahead: every chunk claimed once, every job exactly once', async (t) => {
  const { run, needed } = OWN_SHAPE_CASES['clock-ahead'];
  assertSurvived(t, await run(undefined, { jobs: 3, outageMs: 1_000 }), needed);
});
