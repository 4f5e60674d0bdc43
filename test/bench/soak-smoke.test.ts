// The soak and the house's walk, smoke-run (smoke-bench.ts): a 30 s soak already shows behaviour (no
// 5xx, no lost job, one webhook event per job, realtime sessions that end normally), so those are
// asserted; growth and drift are the long run's to judge.
import t from 'tap';

import { smokeBench } from './smoke-bench.js';

await smokeBench(t, 'soak', ['--minutes', '0.5', '--warmup-minutes', '0', '--sample-seconds', '10', '--job-every-ms', '5000'], {
  bench: 'soak',
  minutes: 0.5,
  rss_growth_mb: Number,
  heap_growth_mb: Number,
  p95_drift: Number,
  db_mb: Number,
  jobs: Number,
  inline_requests: Number,
  realtime_sessions: Number,
  passes: Boolean,
  server_errors: 0,
  lost: 0,
  webhook_mismatches: 0,
  realtime_failed: 0,
});

await smokeBench(t, 'walk', [], { bench: 'walk', inline_files: Number, inline_floors: Number, realtime_files: Number, realtime_floors: Number });
