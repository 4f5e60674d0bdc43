// The embedded default (SQLite and local disk) SIGKILLed half-way through a job's large upload to its
// presigned form (issue 49), then restarted on its data folder: the client sees its connection cut,
// the cut job still awaits its upload (completing it is refused 409: never queued with part of a
// file), nothing of it is left in the spool or job storage, nothing is charged for it, and a job
// accepted before the kill succeeds exactly once. 32 MB here, streamed (never held in memory);
// `npm run bench -- faults --cases embedded-kill-upload` cuts a 200 MB one.
import t from 'tap';

import { killCaseFailures, runEmbeddedUploadKill } from '../helpers/kill-scenario.js';

t.test('SIGKILL mid-way through a 32 MB job upload: a cut connection, no half-written job, nothing left', async (t) => {
  const report = await runEmbeddedUploadKill({ uploadBytes: 32_000_000 });
  t.comment(JSON.stringify(report));
  t.same(killCaseFailures(report), [], 'survived: cut, not hung; the job awaits its upload; nothing left or charged; the accepted job once');
  t.equal(report.succeeded, 1, 'the job accepted before the kill succeeded');
});
