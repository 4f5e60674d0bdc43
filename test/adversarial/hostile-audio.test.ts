// The hostile-audio corpus (test/fixtures/hostile-audio.ts) against POST /v1/audio/transcriptions on a
// real server process: each file gets the status its entry expects (with the envelope's code), the
// server stays up, and nothing of the upload is left on disk — at once for refusals and inline
// answers, and once its job has ended for a 202. Peak memory per file is `npm run bench -- hostile-audio`.
import t from 'tap';

import { HOSTILE_AUDIO } from '../fixtures/hostile-audio.js';
import { waitForEnd } from '../helpers/jobs-client.js';
import { type AdversarialServer, startAdversarialServer } from './lib/adversarial-server.js';
import { leftoverFiles } from './lib/leftovers.js';
import { postFileForTranscription } from './lib/stream-upload.js';

const FIELDS = { model: 'svc-medical-1', response_format: 'json' };

let server: AdversarialServer;
let before: string[];

t.before(async () => {
  server = await startAdversarialServer();
  before = await server.dataFiles();
});
t.teardown(() => server.stop());

for (const entry of HOSTILE_AUDIO) {
  t.test(entry.name, async (t) => {
    const answer = await postFileForTranscription(server.url, server.keys.valid, await entry.path(), FIELDS);
    t.equal(answer.status, entry.expected.status, entry.why);
    if (entry.expected.code) {
      t.match(answer.contentType, /^application\/json/, 'a JSON error');
      const body = JSON.parse(answer.body) as { error?: { code?: string; message?: string } };
      t.same(Object.keys(body), ['error'], 'the envelope');
      t.equal(body.error?.code, entry.expected.code, `code ${entry.expected.code}`);
    }
    if (answer.status === 202) {
      const job = await waitForEnd((JSON.parse(answer.body) as { poll_url: string }).poll_url, server.keys.valid);
      t.match(job.status, /^(succeeded|failed)$/, `the job ended (${job.status})`);
    }
    t.ok(server.alive(), 'the server is up');
    // A job's audio is deleted just after its end is committed (the end first, so a crash between
    // them loses nothing): a poll may see the end a moment before the file goes.
    let left = leftoverFiles(server.dataDir, before, await server.dataFiles());
    for (let waited = 0; answer.status === 202 && left.length > 0 && waited < 10_000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      left = leftoverFiles(server.dataDir, before, await server.dataFiles());
    }
    t.same(left, [], 'nothing of the upload is left on disk');
  });
}
