// Issue 44.2: the realtime session was one file of 800 lines that admitted the session, held the
// audio, analysed the turns and kept the tallies. It is in parts now (the admission use case in
// src/application/, the protocol table, the turn analyser); no file of src/realtime/ may grow back
// past 400 lines.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { sourceFiles } from '../helpers/source-imports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 400;

t.test(`no file of src/realtime/ is over ${MAX_LINES} lines`, async (t) => {
  const files = sourceFiles(ROOT, 'src/realtime');
  t.ok(files.length > 10, `${files.length} files`);
  for (const file of files) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1;
    t.ok(lines <= MAX_LINES, `${file}: ${lines} lines`);
  }
});
