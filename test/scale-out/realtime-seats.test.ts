// Realtime seats across processes: two `serve --role api` processes on one PostgreSQL database serve
// the realtime listener, and a builder project's 2 sessions (1 with speakers) are its limit over both,
// not per process. A process SIGKILLed with a session open gives its seat back once its heartbeat
// expires (SVC_INSTANCE_TTL_MS), without anyone releasing it.
import t from 'tap';

import { postgresStoreDb } from '../../src/store/kysely/store-db.js';
import { openPostgres } from '../../src/store/postgres/database.js';
import { connectRealtime, type RealtimeClient, startMessage } from '../helpers/realtime-client.js';
import { startScaleOutCluster } from '../helpers/scale-out-cluster.js';
import { testKeyStore } from '../helpers/test-sealer.js';

t.test("a builder project's seats hold over two api processes; a killed process's seat comes back", async (t) => {
  const cluster = await startScaleOutCluster({ workers: 0, env: { SVC_INSTANCE_TTL_MS: '3000' } });
  t.teardown(() => cluster.close());
  const db = await openPostgres(cluster.databaseUrl);
  t.teardown(() => db.close());
  const { key } = await testKeyStore(postgresStoreDb(db)).create({ plan: 'builder' });
  const first = cluster.api;
  const second = await cluster.addApi();
  t.ok(first.realtimeUrl && second.realtimeUrl && first.realtimeUrl !== second.realtimeUrl, 'each process has its own listener');

  const open = async (url: string, diarization: boolean) => {
    const c = await connectRealtime(url);
    c.start(startMessage(key, diarization ? { diarization: { enabled: true } } : {}));
    return c;
  };
  const refusal = async (c: RealtimeClient) => (await c.closed).reason;

  const a = await open(first.realtimeUrl!, true);
  await a.next('ready');
  t.equal(await refusal(await open(second.realtimeUrl!, true)), 'SPEAKER_CAPACITY_FULL', 'the speaker seat is held on the other process');
  const b = await open(second.realtimeUrl!, false);
  await b.next('ready');
  t.equal(await refusal(await open(first.realtimeUrl!, false)), 'TOO_MANY_STREAMS', 'two sessions over two processes fill the project');
  t.equal(await refusal(await open(second.realtimeUrl!, false)), 'TOO_MANY_STREAMS');

  // The first process dies with its session open: nobody releases the seat; its expired heartbeat does.
  first.child.kill('SIGKILL');
  await first.exited;
  t.equal((await a.closed).code, 1006, "the killed process's session is cut");
  let attempts = 0;
  for (const deadline = Date.now() + 30_000; ; attempts++) {
    const c = await open(second.realtimeUrl!, true);
    const outcome = await c.next('ready').then(
      () => 'ready',
      async () => (await c.closed).reason,
    );
    if (outcome === 'ready') {
      t.pass(`the dead process's speaker seat came back (${attempts} refusals before)`);
      c.stop();
      await c.closed;
      break;
    }
    t.equal(outcome, 'TOO_MANY_STREAMS', 'refused only while the dead process still counts');
    if (Date.now() > deadline) {
      t.fail('the seat never came back');
      break;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  b.stop();
  t.equal((await b.closed).code, 1000);
});
