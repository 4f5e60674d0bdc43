// Content in the database is sealed under its tenant's data key (issue 48), on SQLite and on
// PostgreSQL: a job's request and carry-over, a stored idempotent answer, a voice profile. The rows
// hold no plaintext, reads open them, a sealed value moved onto another job does not open, and rows
// written before sealing existed are still read as they are.
import t from 'tap';

import { SealingError } from '../../src/store/sealing-error.js';
import { SEALED_DATABASES } from '../helpers/sealed-databases.js';
import { testIdempotencyStore, testJobStore, testVoiceProfileStore } from '../helpers/test-sealer.js';

const PHRASE = 'zebrafish-metoprolol-phrase';

for (const [name, open] of Object.entries(SEALED_DATABASES)) {
  t.test(name, async (t) => {
    t.test('requests, carry-over, stored answers and voice profiles are sealed in the rows and open on read', async (t) => {
      const h = await open(t);
      t.teardown(h.close);
      const jobs = testJobStore(h.db);
      const job = await jobs.create({
        tenant: 'ten_a',
        keyId: 'key_a',
        status: 'accepted',
        request: { response_format: 'json', prompt: `patient on ${PHRASE}` },
        audioPath: '/a/job.audio',
        audioSeconds: 10,
        webhookUrl: null,
      });
      t.same(job.request, { response_format: 'json', prompt: `patient on ${PHRASE}` });
      t.ok(await jobs.claimNext('w1', 1000, 60_000));
      t.ok(await jobs.commitChunk(job.id, 'w1', { progress: { text: PHRASE }, completedAudioSeconds: 5, audioSeconds: 10, partialPath: null }, 2000));
      const read = await jobs.get(job.id, 'ten_a');
      t.same(read?.progress, { text: PHRASE });
      t.same(read?.request, job.request);

      const idempotency = testIdempotencyStore(h.db);
      t.same(await idempotency.begin('ten_a', 'idem-1', 'fp'), { state: 'started' });
      await idempotency.complete('ten_a', 'idem-1', { status: 200, headers: { 'content-type': 'text/plain' }, body: `said ${PHRASE}` });
      const replay = await idempotency.begin('ten_a', 'idem-1', 'fp');
      t.match(replay, { state: 'completed', response: { status: 200, body: `said ${PHRASE}` } });

      const voices = testVoiceProfileStore(h.db);
      const mean = Float64Array.from({ length: 19 }, (_, i) => i + 0.123456789);
      const covariance = new Float64Array(19 * 19).fill(0.987654321);
      const voice = await voices.create('ten_a', 'Dr Ames', { frames: 300, mean, covariance }, 3000);
      t.same(Array.from((await voices.get('ten_a', voice.id))!.profile.mean), Array.from(mean));

      const dump = await h.dump();
      t.notMatch(dump, PHRASE, 'no phrase in any row');
      t.notMatch(dump, '0.123456789', 'no profile statistics in any row');
      t.match(dump, 'Dr Ames', 'metadata stays plain');
    });

    t.test('a sealed request moved onto another job does not open; a plain legacy row still reads', async (t) => {
      const h = await open(t);
      t.teardown(h.close);
      const jobs = testJobStore(h.db);
      const base = { tenant: 'ten_a', keyId: 'key_a', status: 'accepted' as const, audioPath: null, audioSeconds: null, webhookUrl: null };
      const a = await jobs.create({ ...base, request: { prompt: 'a' } });
      const b = await jobs.create({ ...base, request: { prompt: 'b' } });
      const sealedA = (await h.db.selectFrom('jobs').select('request').where('id', '=', a.id).executeTakeFirstOrThrow()).request;
      await h.db.updateTable('jobs').set({ request: sealedA }).where('id', '=', b.id).execute();
      await t.rejects(jobs.get(b.id, 'ten_a'), SealingError);
      await h.db.updateTable('jobs').set({ request: '{"prompt":"legacy"}', progress: '{"text":"old"}' }).where('id', '=', b.id).execute();
      const legacy = await jobs.get(b.id, 'ten_a');
      t.same(legacy?.request, { prompt: 'legacy' });
      t.same(legacy?.progress, { text: 'old' });
    });
  });
}
