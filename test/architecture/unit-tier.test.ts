// The fast tier (`npm run test:unit`, test/unit-tier.json) stays fast by what its files do, not by a
// stopwatch: none starts the service or a server process, loads the native engine or a model, opens
// PostgreSQL or the S3 server, drives a browser, makes speech or decodes audio. A file that comes to
// need one of them leaves the tier (it still runs in `npm test`).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tier = JSON.parse(readFileSync(join(ROOT, 'test', 'unit-tier.json'), 'utf8')) as { files: string[] };

/** What makes a test slow, as its source names it. */
const SLOW = [
  /\bstartTestService\b|helpers\/serve-process/,
  /loadNativeAddon|engine\/engine\.js|testModelPath/,
  /postgres-server|s3-test-server|SVC_TEST_STORES/,
  /browser-harness|playwright/,
  /speechWav|conversation\(|exchange\(|referenceClip|espeak/,
  /\bdecodeAudio\b|ffmpeg-process/,
];

t.test('the fast tier lists existing test files, once each', async (t) => {
  t.ok(tier.files.length >= 40, `${tier.files.length} files`);
  t.equal(new Set(tier.files).size, tier.files.length, 'no file twice');
  for (const file of tier.files) t.ok(file.endsWith('.test.ts') && existsSync(join(ROOT, file)), file);
});

t.test('no file of the fast tier starts a service, an engine, a database server, a browser or makes audio', async (t) => {
  for (const file of tier.files) {
    const source = readFileSync(join(ROOT, file), 'utf8');
    const slow = SLOW.filter((pattern) => pattern.test(source) && file !== 'test/architecture/unit-tier.test.ts');
    t.same(slow.map(String), [], `${file}: ${slow.length === 0 ? 'logic only' : 'names what the tier leaves out'}`);
  }
});
