// The hostile-audio corpus (test/fixtures/hostile-audio.ts) against POST /v1/audio/transcriptions on a
// real server process: each file gets the status its entry expects (with the envelope's code), the
// server stays up, and nothing of the upload is left on disk — at once for refusals and inline
// answers, and once its job has ended for a 202. Peak memory per file is `npm run bench -- hostile-audio`.
import t from 'tap';
import { waitForEnd } from '../helpers/jobs-client.js';
import { HOSTILE_AUDIO } from '../fixtures/hostile-audio.js';
import { startAdversarialServer, type AdversarialServer } from './lib/adversarial-server.js';
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
    t.same(leftoverFiles(server.dataDir, before, await server.dataFiles()), [], 'nothing of the upload is left on disk');
  });
}
