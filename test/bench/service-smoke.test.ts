// The benches that run the service on its embedded stores (in-process or as `svc-stt serve` children),
// each smoke-run at its smallest (test/bench/smoke-bench.ts). Invariants of behaviour are asserted where
// the run is cheap: no server errors, no crash, sessions closed normally.
import t from 'tap';

import { smokeBench } from './smoke-bench.js';

await smokeBench(t, 'upload', ['--mib', '4'], { mib: 4, rss_growth_mb: Number, mb_per_s: Number, bar_mb: 64, passes: Boolean });

await smokeBench(t, 'native-memory', ['--requests', '8', '--concurrency', '2', '--arch', 'micro', '--idle-ms', '200'], {
  requests: 8,
  concurrency: 2,
  arch: 'micro',
  statuses: Object,
  post_load_mb: Number,
  after_100_mb: Number,
  after_last_mb: Number,
  growth_100_to_last_mb: Number,
  idle_mb: Number,
  idle_vs_post_load: Number,
  curve: Array,
});

await smokeBench(t, 'fuzz', ['--cases', '20', '--concurrency', '2'], {
  cases: 20,
  server_errors: 0,
  non_envelope: Number,
  crashes: 0,
  echoes: Number,
  no_response: Number,
  known_defect_cases: Number,
  leftover_files: Number,
  rss_baseline_mb: Number,
  rss_peak_mb: Number,
  rss_settled_mb: Number,
  rss_growth_mb: Number,
  heap_baseline_mb: Number,
  heap_settled_mb: Number,
  heap_growth_mb: Number,
  seconds: Number,
  seed: Number,
});

await smokeBench(t, 'hostile-audio', ['--files', '3'], {
  files: 3,
  status_mismatches: Number,
  worst_server_peak_growth_mb: Number,
  worst_decoder_peak_mb: Number,
  server_alive: true,
});

await smokeBench(t, 'realtime', ['--sessions', '1', '--arch', 'micro', '--pieces', '1', '--speech', '2', '--silence', '1', '--speaker-sessions', '1'], {
  sessions: 1,
  partial_p95_ms: Number,
  turn_final_p95_ms: Number,
  transport: 'ws',
  partial_p50_ms: Number,
  turn_final_p50_ms: Number,
  arch: 'micro',
  vocabulary_terms: 0,
  runs: [
    { transport: 'ws', sessions: 1, speakers: false, failed: 0 },
    { transport: 'ws', sessions: 1, speakers: true, failed: 0 },
  ],
  speaker_sessions: 1,
  speakers_partial_p95_ms: Number,
  speakers_turn_final_p95_ms: Number,
});

await smokeBench(t, 'fairness', ['--rounds', '1', '--job-seconds', '90', '--inline-seconds', '2', '--arch', 'micro', '--pieces', '1'], {
  ratio: Number,
  realtime_turn_final_p95_ms: Number,
  realtime_partial_p95_ms: Number,
  inline_idle_p95_ms: Number,
  inline_busy_p95_ms: Number,
  idle_realtime_turn_final_p95_ms: Number,
  idle_realtime_partial_p95_ms: Number,
  turn_finals: Number,
  holds: Number,
  urgent_workers: 'default',
  arch: 'micro',
  job_running_throughout: Boolean,
  rounds: 1,
});
