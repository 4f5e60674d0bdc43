// `npm run bench -- upload` runs to its JSON line, on a small upload: a bench that no longer runs is a
// defect (it waited for a ready line the server stopped printing, and hung). Only that it runs and
// what it reports are checked here; its figures are the bench's to judge, never a test's.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');

t.test('bench upload --mib 4: a table, then one JSON line last, exit 0', async (t) => {
  // Without tap's NODE_OPTIONS (its process tracking), which only slows the child down.
  const { NODE_OPTIONS: _, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'run.ts'), 'upload', '--mib', '4'], { cwd: ROOT, env });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  // A hang is what this guards against: the bench is stopped after two minutes and the test fails.
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  t.equal(code, 0, `exit 0 ${err.slice(-500)}`);
  const lines = out.trim().split('\n');
  const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
  t.match(last, { bench: 'upload', mib: 4, rss_growth_mb: Number, mb_per_s: Number, bar_mb: 64, passes: Boolean });
  t.ok(
    lines.some((line) => line.includes('growth MiB')),
    'the table came first',
  );
});
