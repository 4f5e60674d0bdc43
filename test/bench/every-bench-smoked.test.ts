// Every bench has its smoke run (test/bench/*-smoke.test.ts): a bench added without one could rot
// unnoticed, which is what the smoke runs are there to prevent.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import t from 'tap';

import { ROOT } from './smoke-bench.js';

// As bench/run.ts lists them.
const benches = readdirSync(join(ROOT, 'bench'))
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('lib-'))
  .map((f) => f.slice(0, -3));
const here = join(ROOT, 'test', 'bench');
const smoked = new Set(
  readdirSync(here)
    .filter((f) => f.endsWith('.test.ts'))
    .flatMap((f) => [...readFileSync(join(here, f), 'utf8').matchAll(/smokeBench\(\s*t,\s*'([\w-]+)'/g)].map((m) => m[1])),
);

t.same(
  benches.filter((name) => !smoked.has(name)),
  [],
  'every bench in bench/ is smoke-run by a test in test/bench/',
);
t.same(
  [...smoked].filter((name) => !benches.includes(name)),
  [],
  'every smoke run names a bench that exists',
);
