// The log audit: every server log written while the suite ran (kept by test/helpers/test-logs.ts in
// the folder scripts/run-tests.mjs names in SVC_TEST_LOG_DIR) must hold no API key, webhook secret,
// transcript text or uploaded file name. Not a *.test.ts file: tap runs test files in parallel and in
// no fixed order, so run-tests.mjs runs this one by itself once the suite has finished.
import t from 'tap';

import { testLogDir } from '../helpers/test-logs.js';
import { scanLogs } from './lib/log-scan.js';

/** Findings printed in full; the rest are counted. */
const SHOWN = 40;

const dir = testLogDir();

t.test('server logs hold no secrets, transcripts or file names', { skip: dir === null && 'no SVC_TEST_LOG_DIR: run it through npm test' }, async (t) => {
  const scan = scanLogs(dir!);
  t.comment(`${scan.files} log files, ${scan.lines} lines, ${scan.canaries} recorded canaries`);
  for (const finding of scan.findings.slice(0, SHOWN)) t.comment(`${finding.file}:${finding.line}: ${finding.what}`);
  t.equal(scan.findings.length, 0, 'no findings');
});
