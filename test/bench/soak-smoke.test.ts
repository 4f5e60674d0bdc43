// `npm run bench -- soak` runs to its JSON line on a short mix (30 s): the long soak is a bench, but a
// bench that no longer runs is a defect. Its figures (growth, drift) are the bench's to judge; what a
// short run must already show is behaviour: no 5xx, no lost job, one webhook event per job, and
// realtime sessions that end normally.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');

t.test('bench soak --minutes 0.5: a table, then one JSON line last, exit 0, nothing lost', async (t) => {
  // Without tap's NODE_OPTIONS (its process tracking), which only slows the child down.
  const { NODE_OPTIONS: _, ...env } = process.env;
  const args = ['soak', '--minutes', '0.5', '--warmup-minutes', '0', '--sample-seconds', '10', '--job-every-ms', '5000'];
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'run.ts'), ...args], { cwd: ROOT, env });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  // A hang is what this guards against: the bench is stopped after four minutes and the test fails.
  const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  t.equal(code, 0, `exit 0 ${err.slice(-500)}`);
  const lines = out.trim().split('\n');
  const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
  t.match(last, {
    bench: 'soak',
    minutes: 0.5,
    rss_growth_mb: Number,
    heap_growth_mb: Number,
    p95_drift: Number,
    db_mb: Number,
    passes: Boolean,
  });
  t.ok((last.jobs as number) >= 3, `jobs were accepted (${String(last.jobs)})`);
  t.ok((last.inline_requests as number) >= 5, `inline requests were answered (${String(last.inline_requests)})`);
  t.ok((last.realtime_sessions as number) >= 2, `realtime sessions ran (${String(last.realtime_sessions)})`);
  t.same(
    { server_errors: last.server_errors, lost: last.lost, webhook_mismatches: last.webhook_mismatches, realtime_failed: last.realtime_failed },
    { server_errors: 0, lost: 0, webhook_mismatches: 0, realtime_failed: 0 },
    'no 5xx, no lost job, one webhook event per job, every realtime session ended normally',
  );
  t.ok(
    lines.some((line) => line.includes('RSS MiB')),
    'the table came first',
  );
});
