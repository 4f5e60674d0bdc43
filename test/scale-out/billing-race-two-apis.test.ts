// Billing admission across processes: two `serve --role api` processes on one PostgreSQL database
// (and one bucket), each a process of its own as on two machines. Inline requests sent to both at
// once against an allowance that fits 4 of them, and realtime sessions on both against a realtime
// allowance that fits one slice, are admitted only as far as the limit goes: the reservations are
// decided in the database under the tenant's lock, whichever process asks.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { KyselyBillingSettingsStore } from '../../src/store/kysely/kysely-billing-settings-store.js';
import { postgresStoreDb } from '../../src/store/kysely/store-db.js';
import { openPostgres } from '../../src/store/postgres/database.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth } from '../helpers/jobs-client.js';
import { connectRealtime, startMessage, wavPcm } from '../helpers/realtime-client.js';
import { startScaleOutCluster } from '../helpers/scale-out-cluster.js';
import { testKeyStore } from '../helpers/test-sealer.js';
import { postTranscription } from '../helpers/test-service.js';

t.test('two api processes on PostgreSQL: racing inline requests and realtime sessions admit exactly what fits', async (t) => {
  const cluster = await startScaleOutCluster({ workers: 0, env: { SVC_RATE_LIMIT_PER_MINUTE: '100000' } });
  t.teardown(() => cluster.close());
  const db = await openPostgres(cluster.databaseUrl);
  t.teardown(() => db.close());
  const storeDb = postgresStoreDb(db);
  const apis = [cluster.api, await cluster.addApi()];

  const inline = await testKeyStore(storeDb).create({ plan: 'builder', tenant: 'two-apis-inline' });
  await new KyselyBillingSettingsStore(storeDb).updateKey(inline.record.id, { overrides: { batchIncludedMs: 4_000 } });
  const wav = await readFile(await speechWav(1));
  const statuses = await Promise.all(
    Array.from({ length: 16 }, async (_, i) => {
      const res = await postTranscription(
        apis[i % 2].url,
        inline.key,
        { model: 'svc-medical-1', response_format: 'json' },
        { data: wav, name: 'a.wav', type: 'audio/wav' },
      );
      await res.arrayBuffer();
      return res.status;
    }),
  );
  t.equal(statuses.filter((s) => s === 200).length, 4, 'admitted: the 4 that fit, over both processes');
  t.equal(statuses.filter((s) => s === 402).length, 12);
  const usage = (await (await fetch(`${apis[1].url}/v1/usage`, { headers: auth(inline.key) })).json()) as { batch_seconds: number };
  t.equal(usage.batch_seconds, 4, 'metered: nothing beyond the allowance');

  // 5 s of realtime for the tenant: sessions on both processes at once share it, whoever streams first.
  const live = await testKeyStore(storeDb).create({ plan: 'payg', tenant: 'two-apis-realtime' });
  await new KyselyBillingSettingsStore(storeDb).updateKey(live.record.id, { overrides: { realtimeIncludedMs: 5_000, realtimePriceMicros: null } });
  const speech = wavPcm(await readFile(await speechWav(8, { seed: 4 })));
  const sessions = await Promise.all(
    apis.map(async (api) => {
      const client = await connectRealtime(api.realtimeUrl!);
      client.start(startMessage(live.key));
      return client;
    }),
  );
  const outcomes = await Promise.all(
    sessions.map(async (client) => {
      const ready = await client.next('ready').then(
        () => true,
        () => false,
      );
      if (ready) await client.stream(speech, { pace: Infinity });
      const closed = await client.closed;
      const final = client.events.find((e) => e.type === 'final');
      return { closed, seconds: (final?.audio_seconds as number | undefined) ?? 0 };
    }),
  );
  const taken = outcomes.reduce((sum, o) => sum + o.seconds, 0);
  t.ok(taken <= 5, `audio taken over both sessions: ${taken} s of the 5 s allowance`);
  t.ok(taken >= 5 - 1, 'and the allowance was used (less at most one least slice)');
  for (const o of outcomes) t.same(o.closed, { code: 4402, reason: 'BILLING_BLOCKED' }, 'each session ends at the limit (at start or after its final)');
  // Metering is written as each session closes.
  const metered = async () =>
    ((await (await fetch(`${apis[0].url}/v1/usage`, { headers: auth(live.key) })).json()) as { realtime_seconds: number }).realtime_seconds;
  for (const deadline = Date.now() + 5_000; (await metered()) !== taken && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
  t.equal(await metered(), taken, 'metered: the audio the sessions took, never beyond the allowance');
});
