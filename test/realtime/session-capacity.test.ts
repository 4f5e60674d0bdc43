// Seats as the realtime session takes them (session-capacity.ts), on a real SQLite seat store: the
// plan limits as close refusals, a release the store could not take retried before the next take (a
// seat is never kept for good by an outage), and a start that finds the database down refused with
// 1013 SERVICE_UNAVAILABLE on a real listener. The store's outage is injected at its boundary; the
// stores' own mapping of a dead database to StoreUnavailableError is tested in test/store/.
import { join } from 'node:path';

import t from 'tap';

import { KeyStandingWatch } from '../../src/billing/key-standing-watch.js';
import { UsageBilling } from '../../src/billing/usage-billing.js';
import { Engine } from '../../src/engine/engine.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { startRealtimeListener } from '../../src/realtime/realtime-listener.js';
import { SessionCapacity } from '../../src/realtime/session-capacity.js';
import { KyselyInstanceRegistry } from '../../src/store/kysely/kysely-instance-registry.js';
import { KyselyRealtimeSeatStore } from '../../src/store/kysely/kysely-realtime-seat-store.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import type { RealtimeSeatStore } from '../../src/store/realtime-seat-store.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { StoreUnavailableError } from '../../src/store/store-unavailable-error.js';
import { connectRealtime, startMessage } from '../helpers/realtime-client.js';
import { testModelPath } from '../helpers/test-models.js';
import { startTestService } from '../helpers/test-service.js';

/** A seat store that fails the calls named in `failing` (once each time they are added) with an outage. */
async function flakySeats(t: any) {
  const db = openDatabase(join(t.testdir(), 'svc-stt.db'));
  t.teardown(() => db.close());
  await new KyselyInstanceRegistry(sqliteStoreDb(db)).register('inst_a', 'api', Date.now(), 3_600_000);
  const real = new KyselyRealtimeSeatStore(sqliteStoreDb(db), { instanceId: 'inst_a' });
  const failing = new Set<'take' | 'release'>();
  const fail = (call: 'take' | 'release') => {
    if (!failing.delete(call)) return;
    throw new StoreUnavailableError('database', { cause: new Error('connection refused') });
  };
  const seats: RealtimeSeatStore = {
    take: async (...args) => (fail('take'), real.take(...args)),
    release: async (seatId) => (fail('release'), real.release(seatId)),
    held: (...args) => real.held(...args),
    releaseSeatsOfDeadInstances: () => real.releaseSeatsOfDeadInstances(),
  };
  return { seats, failing };
}

t.test('plan limits, and a release lost to an outage is retried before the next take', async (t) => {
  const { seats, failing } = await flakySeats(t);
  const capacity = new SessionCapacity(seats);
  const first = await capacity.take('p1', 'builder', true);
  await t.rejects(capacity.take('p1', 'builder', true), { reason: 'SPEAKER_CAPACITY_FULL', closeCode: 1013, code: 'rate_limited' });
  const second = await capacity.take('p1', 'builder', false);
  await t.rejects(capacity.take('p1', 'builder', false), { reason: 'TOO_MANY_STREAMS', closeCode: 1013, code: 'rate_limited' });
  failing.add('release');
  first();
  first();
  await new Promise((r) => setImmediate(r));
  t.same(await capacity.heldBy('p1'), { sessions: 2, speakerSessions: 1 }, 'the store did not take the release');
  const third = await capacity.take('p1', 'builder', true);
  t.same(await capacity.heldBy('p1'), { sessions: 2, speakerSessions: 1 }, 'the lost release went through before the take, which then found room');
  second();
  third();
  await new Promise((r) => setImmediate(r));
  t.same(await capacity.heldBy('p1'), { sessions: 0, speakerSessions: 0 });
});

t.test('a start that finds the seat store down: 1013 SERVICE_UNAVAILABLE, then served once it is back', async (t) => {
  const { seats, failing } = await flakySeats(t);
  const svc = await startTestService();
  t.teardown(() => svc.close());
  const engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, vadModel: vadModelPath(), vadWorkers: 1 });
  t.teardown(() => engine.close());
  const listener = await startRealtimeListener({
    host: '127.0.0.1',
    port: 0,
    transport: 'ws',
    keys: svc.stores.keys,
    clientSecrets: svc.stores.clientSecrets,
    billing: new UsageBilling(svc.stores.usage, svc.stores.billing, Date.now, null, svc.service.instanceId),
    watch: new KeyStandingWatch(svc.stores.keys),
    seats,
    engines: { 'svc-medical-1': engine, 'svc-medical-edge-1': engine },
  });
  t.teardown(() => listener.close());
  failing.add('take');
  const refused = await connectRealtime(listener.url);
  refused.start(startMessage(svc.key));
  t.same(await refused.closed, { code: 1013, reason: 'SERVICE_UNAVAILABLE' });
  t.match(refused.events, [{ type: 'error', code: 'service_unavailable', reason: 'SERVICE_UNAVAILABLE' }]);
  t.notMatch(JSON.stringify(refused.events), /connection refused/, "the store's error is not passed on");
  const served = await connectRealtime(listener.url);
  served.start(startMessage(svc.key));
  await served.next('ready');
  served.stop();
  t.equal((await served.closed).code, 1000);
});
