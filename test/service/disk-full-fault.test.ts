// The data folder's file system fills up on the embedded default (issue 49): `serve` on SQLite runs
// on a small tmpfs of the test's own (database, blobs and upload spool), which the test fills to the
// last byte while jobs run and requests keep arriving, tries an upload that cannot fit, then frees.
// Requests during it get 503 with Retry-After or succeed (never 500, never a hang), /readyz says not
// ready while free space is below the service's floor, the upload that could not fit leaves nothing
// behind, SQLite's integrity check passes, the process lives on, and every job accepted before the
// fault succeeds exactly once once space is freed. Mounting needs root (or CAP_SYS_ADMIN): without
// it the test fails, unless SVC_TEST_NO_MOUNT names why the machine cannot (then it skips, saying so).
import t from 'tap';

import { OWN_SHAPE_CASES } from '../helpers/fault-cases.js';
import { assertSurvived } from '../helpers/fault-scenario.js';
import { mountSkipReason } from '../helpers/tmpfs-mount.js';

t.test('the data folder full: 503s, not ready, nothing half-written, then every job exactly once', { skip: mountSkipReason() }, async (t) => {
  const { run, needed } = OWN_SHAPE_CASES['disk-full'];
  assertSurvived(t, await run(undefined, { jobs: 2, outageMs: 3_000 }), needed);
});
