// The benches on PostgreSQL and S3 (the scaled-out shape, and billing on both store pairs), each
// smoke-run at its smallest (test/bench/smoke-bench.ts); they start their own servers through the
// tests' helpers, as the benches do. Invariants of behaviour are asserted: no billing past the
// allowance, no lost or duplicated work, no server errors.
import t from 'tap';

import { smokeBench } from './smoke-bench.js';

const storeFigures = { admitted: Number, refused: Number, overshoot_s: 0, check_ms: Number, reserve_ms: Number, request_ms: Number };
await smokeBench(t, 'billing-race', ['--requests', '3', '--fits', '1', '--checks', '2', '--stores', 'sqlite,postgres', '--request-seconds', '2'], {
  admitted: Number,
  allowed: 1,
  overshoot_s: 0,
  reservation_cost: Number,
  stores: { sqlite: storeFigures, postgres: storeFigures },
  requests: 3,
  request_seconds: 2,
});

await smokeBench(t, 'scaleout', ['--jobs', '1', '--seconds', '2', '--rounds', '1', '--model', 'micro', '--max-tokens', '4'], {
  speedup: Number,
  lost: 0,
  t1_seconds: Number,
  t2_seconds: Number,
  jobs: 1,
  audio_seconds: 2,
  model: 'micro',
  rounds: 1,
});

// The one case at its shortest: a 2 s outage of the database with one job.
await smokeBench(
  t,
  'faults',
  ['--outage-seconds', '2', '--jobs', '1', '--cases', 'database-refused'],
  {
    cases: 1,
    survived: Number,
    lost: 0,
    duplicated: 0,
    server_errors: 0,
    hung: Number,
    missing_retry_after: Number,
    unbilled: Number,
    unreadable: Number,
    leftover_objects: Number,
    exited: Number,
    max_seconds_to_ready: Number,
    max_seconds_to_jobs_done: Number,
    outage_seconds: 2,
    jobs_per_case: 1,
    failed_cases: Array,
  },
  // Most of its time is waiting: the job held through the outage is taken up again when its lease (60 s) runs out.
  { timeoutMs: 360_000 },
);
