// An existing installation's plain content sealed in the background (issue 48, item 5), on SQLite and
// PostgreSQL: rows written before sealing existed (a job's request and carry-over, a stored answer, a
// voice profile, a key's dictionary) are counted, sealed by the migration's passes, and read back unchanged through the
// stores; a second pass finds nothing; the counts are what /metrics shows.
import t from 'tap';

import { PlainContentMigration } from '../../src/service/plain-content-migration.js';
import { KyselyPlainContentSealing } from '../../src/store/kysely/kysely-plain-content-sealing.js';
import { SEALED_TEXT_PREFIX } from '../../src/store/sealed-buffer.js';
import { SEALED_DATABASES } from '../helpers/sealed-databases.js';
import { testIdempotencyStore, testJobStore, testKeyStore, testSealer, testVoiceProfileStore } from '../helpers/test-sealer.js';

const PHRASE = 'kingfisher-warfarin-phrase';
const JOBS = 300; // more than one batch (250)

for (const [name, open] of Object.entries(SEALED_DATABASES)) {
  t.test(name, async (t) => {
    const h = await open(t);
    t.teardown(h.close);
    const jobs = testJobStore(h.db);
    const base = { keyId: 'key_a', status: 'accepted' as const, audioPath: null, audioSeconds: null, webhookUrl: null };
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) ids.push((await jobs.create({ ...base, tenant: i % 2 ? 'ten_a' : 'ten_b', request: { prompt: `p${i}` } })).id);
    const idempotency = testIdempotencyStore(h.db);
    await idempotency.begin('ten_a', 'idem-1', 'fp');
    await idempotency.complete('ten_a', 'idem-1', { status: 200, headers: { 'content-type': 'text/plain' }, body: 'x' });
    const voices = testVoiceProfileStore(h.db);
    const mean = Float64Array.from({ length: 19 }, (_, i) => i + 0.5);
    const voice = await voices.create('ten_a', 'Dr Ames', { frames: 300, mean, covariance: new Float64Array(19 * 19).fill(0.25) }, 3000);
    const sealedProfile = (await h.db.selectFrom('voice_profiles').select('profile').executeTakeFirstOrThrow()).profile;
    const profile = await testSealer(h.db).openText('ten_a', `voice_profiles.profile:${voice.id}`, sealedProfile);
    const keys = testKeyStore(h.db);
    const { record: key } = await keys.create({ tenant: 'ten_b' });
    await keys.setDictionary(key.id, 'en', ['placeholder']);

    // What an installation of the previous version holds: the same content, plain.
    for (const [i, id] of ids.entries())
      await h.db
        .updateTable('jobs')
        .set({ request: JSON.stringify({ prompt: `${PHRASE} ${i}` }) })
        .where('id', '=', id)
        .execute();
    await h.db
      .updateTable('jobs')
      .set({ progress: JSON.stringify({ text: PHRASE }) })
      .where('id', '=', ids[0]!)
      .execute();
    await h.db
      .updateTable('idempotency_records')
      .set({ response_body: `said ${PHRASE}` })
      .execute();
    await h.db.updateTable('voice_profiles').set({ profile }).execute();
    await h.db
      .updateTable('key_dictionaries')
      .set({ terms: JSON.stringify([PHRASE, 'warfarin']) })
      .execute();
    t.match(await h.dump(), PHRASE);

    const sealing = new KyselyPlainContentSealing(h.db, testSealer(h.db));
    t.same(await sealing.plainCounts(), {
      'jobs.request': JOBS,
      'jobs.progress': 1,
      'idempotency_records.response_body': 1,
      'voice_profiles.profile': 1,
      'key_dictionaries.terms': 1,
    });
    const migration = new PlainContentMigration(sealing);
    t.equal(migration.plainLeft(), null, 'nothing known before the first pass');
    await migration.pass();
    t.same(migration.plainLeft(), {
      'jobs.request': 0,
      'jobs.progress': 0,
      'idempotency_records.response_body': 0,
      'voice_profiles.profile': 0,
      'key_dictionaries.terms': 0,
    });
    t.equal(migration.sealed(), JOBS + 4, 'every plain value sealed, over several batches');
    const dump = await h.dump();
    t.notMatch(dump, PHRASE, 'no phrase left in any row');
    t.notMatch(dump, '"mean"', 'no profile statistics in any row');
    t.match(dump, SEALED_TEXT_PREFIX);

    t.same((await jobs.get(ids[7]!, 'ten_a'))?.request, { prompt: `${PHRASE} 7` }, 'a request reads as it was');
    t.same((await jobs.get(ids[0]!, 'ten_b'))?.progress, { text: PHRASE }, 'the carry-over too');
    t.match(await idempotency.begin('ten_a', 'idem-1', 'fp'), { state: 'completed', response: { body: `said ${PHRASE}` } }, 'the stored answer');
    t.same(Array.from((await voices.get('ten_a', voice.id))!.profile.mean), Array.from(mean), 'the voice');
    t.same(await keys.getDictionary(key.id, 'en'), [PHRASE, 'warfarin'], 'the dictionary');

    t.equal(await sealing.sealBatch(250), 0, 'a second batch finds nothing: idempotent');
    await h.db.updateTable('jobs').set({ request: '{"prompt":"written by an older process"}' }).where('id', '=', ids[1]!).execute();
    for (let i = 0; i < 10; i++) await migration.pass();
    t.same(migration.plainLeft()?.['jobs.request'], 0, 'what an older process wrote meanwhile is found on a later look');
    t.same((await jobs.get(ids[1]!, 'ten_a'))?.request, { prompt: 'written by an older process' });
  });
}
