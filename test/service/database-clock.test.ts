// The database clock (src/service/database-clock.ts): a process's "now" for leases, heartbeats and
// expiries is its own clock plus the offset to the database server's, measured against the middle of
// the round trip that read it; a large offset is logged once, not at every measurement.
import t from 'tap';

import { DatabaseClock } from '../../src/service/database-clock.js';

function recordingLog() {
  const lines: Array<{ details: object; message: string }> = [];
  return { lines, warn: (details: object, message: string) => void lines.push({ details, message }) };
}

t.test("now() is the database's time, measured against the middle of the round trip", async (t) => {
  let local = 1_000_000;
  // The database answers 120 s behind this process's clock; each read takes 10 ms of this clock.
  const databaseTimeMs = async () => {
    local += 5;
    const answer = local - 120_000;
    local += 5;
    return answer;
  };
  const log = recordingLog();
  const clock = new DatabaseClock(databaseTimeMs, log, () => local);
  t.equal(await clock.align(), -120_000);
  t.equal(clock.now(), local - 120_000);
  local += 1_000;
  t.equal(clock.now(), local - 120_000, 'later readings carry the offset');
  await clock.align();
  t.equal(log.lines.length, 1, 'an unchanged offset is logged once');
  t.same(log.lines[0].details, { offsetMs: -120_000 });
});

t.test('a small offset is applied but not logged; a failed measurement keeps the last offset', async (t) => {
  const local = 0;
  let answer: () => number = () => local + 40;
  const log = recordingLog();
  const clock = new DatabaseClock(
    async () => answer(),
    log,
    () => local,
  );
  t.equal(await clock.align(), 40);
  answer = () => {
    throw new Error('the database is away');
  };
  await t.rejects(clock.align());
  t.equal(clock.offset, 40);
  t.equal(log.lines.length, 0);
});
