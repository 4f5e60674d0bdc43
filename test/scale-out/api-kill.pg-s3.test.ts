// An api process SIGKILLed mid-request (issue 49), on an api process, a second api process (the
// victim, on the tiny model and one thread so an answer takes long enough to be cut) and a worker on
// PostgreSQL and S3: once half-way through a direct upload, once after the first event of a
// stream=true answer. Each time the client sees its connection cut (never a hang), the other api
// process keeps serving, the victim restarted on its data folder serves again with nothing left in
// its spool, the cut request left no job, no object and no charge, and the jobs accepted through the
// victim before the kill succeed exactly once: billed once, one signed webhook event each.
// (16 MB here; `npm run bench -- faults --cases api-kill-upload` cuts a 90 MB one, near the route's cap.)
import t from 'tap';

import { killCaseFailures, runApiKillCase } from '../helpers/kill-scenario.js';
import { startScaleOutCluster } from '../helpers/scale-out-cluster.js';
import { testModelPath } from '../helpers/test-models.js';

const cluster = await startScaleOutCluster({ workers: 1, webhooks: true, env: { SVC_JOB_CHUNK_SECONDS: '5', SVC_INSTANCE_TTL_MS: '3000' } });
t.teardown(() => cluster.close());
let victim = await cluster.addApi({ SVC_MODEL: await testModelPath('tiny'), SVC_THREADS_PER_WORKER: '1' });

for (const [point, title] of [
  ['upload', 'killed half-way through a 16 MB direct upload'],
  ['stream', 'killed after the first event of a streamed answer'],
] as const) {
  t.test(`an api process ${title}: a cut connection, nothing half-written, every job once`, async (t) => {
    const { report, restarted } = await runApiKillCase(cluster, victim, point, { uploadBytes: 16_000_000 });
    victim = restarted;
    t.comment(JSON.stringify(report));
    t.same(killCaseFailures(report), [], 'survived: cut, not hung; nothing left, nothing charged; others serve; every job once');
    t.equal(report.succeeded, report.accepted, `every accepted job succeeded (${report.succeeded}/${report.accepted})`);
  });
}
