// compromise's model (tens of MiB) is loaded when redaction first needs its lexicon, never at start:
// a service that never redacts must not hold it. Loaded at start it showed as 25 MiB of extra RSS
// growth under the adversarial refusal run (test/adversarial/resource-limits.test.ts). A child process
// records every module resolution through Node's own hooks while it imports the service and the library,
// then redacts once: compromise must appear only then.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import t from 'tap';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const CHILD = `
import { registerHooks } from 'node:module';
const seen = [];
registerHooks({ resolve(specifier, context, next) { if (specifier.startsWith('compromise')) seen.push(specifier); return next(specifier, context); } });
await import('./src/service/start-service.ts');
const library = await import('./src/index.ts');
const atStart = seen.length;
library.redactText('My name is John Smith.');
process.stdout.write(JSON.stringify({ atStart, afterRedaction: seen.length }));
`;

t.test('importing the service and the library does not load compromise; the first redaction does', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], { cwd: ROOT });
  const { atStart, afterRedaction } = JSON.parse(stdout) as { atStart: number; afterRedaction: number };
  t.equal(atStart, 0, 'not at start');
  t.ok(afterRedaction > 0, 'on the first redaction (so the hook sees it)');
});
