// The IdempotencyStore contract, run against every implementation (test/store/idempotency-store.test.ts):
// the claim states, replay, release, 24-hour expiry with an injected clock, tenant scoping, and
// atomicity of `begin` between stores on separate connections (as separate processes would have).
import type { Test } from 'tap';

import { IDEMPOTENCY_RETENTION_MS } from '../../../src/store/idempotency-record.js';
import type { IdempotencyStore, StoredResponse } from '../../../src/store/idempotency-store.js';
import type { InstanceRegistry } from '../../../src/store/instance-registry.js';

export interface IdempotencyStoreHarness {
  store: IdempotencyStore;
  /** Another store on the same database through its own connection(s). */
  another(): Promise<IdempotencyStore>;
  /** A store on the same database whose claims belong to `owner` (an instance id). */
  ownedBy(owner: string): Promise<IdempotencyStore>;
  /** The instance registry of the same database. */
  instances: InstanceRegistry;
  close(): Promise<void>;
}

export type MakeIdempotencyStore = (t: Test) => Promise<IdempotencyStoreHarness>;

const T0 = new Date('2030-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const response: StoredResponse = {
  status: 202,
  headers: { location: 'http://127.0.0.1:8080/v1/jobs/job_1', 'retry-after': '5' },
  body: '{"id":"job_1","status":"accepted"}',
};

export function idempotencyStoreContract(t: Test, name: string, make: MakeIdempotencyStore): void {
  const open = async (t: Test): Promise<IdempotencyStoreHarness> => {
    const harness = await make(t);
    t.teardown(() => harness.close());
    return harness;
  };

  t.test(`${name}: IdempotencyStore contract`, async (t) => {
    t.test('started, then in_progress, conflict, completed with the stored response', async (t) => {
      const { store } = await open(t);
      t.same(await store.begin('ten_a', 'k', 'fp1', T0), { state: 'started' });
      t.same(await store.begin('ten_a', 'k', 'fp1', at(1)), { state: 'in_progress' });
      t.same(await store.begin('ten_a', 'k', 'fp2', at(1)), { state: 'conflict' }, 'different content while in progress');
      await store.complete('ten_a', 'k', response);
      t.same(await store.begin('ten_a', 'k', 'fp1', at(2)), { state: 'completed', response });
      t.same(await store.begin('ten_a', 'k', 'fp2', at(2)), { state: 'conflict' }, 'different content after completion');
      await store.complete('ten_a', 'k', { ...response, status: 500 });
      t.same(await store.begin('ten_a', 'k', 'fp1', at(3)), { state: 'completed', response }, 'a completed record is never overwritten');
      await store.complete('ten_a', 'never-begun', response);
      t.same(await store.begin('ten_a', 'never-begun', 'fp1', at(3)), { state: 'started' }, 'complete without a claim stores nothing');
    });

    t.test('hasResponse: only a completed record of the tenant, until it expires', async (t) => {
      const { store } = await open(t);
      t.equal(await store.hasResponse('ten_a', 'k', T0), false, 'no record');
      await store.begin('ten_a', 'k', 'fp1', T0);
      t.equal(await store.hasResponse('ten_a', 'k', at(1)), false, 'in progress');
      await store.complete('ten_a', 'k', response);
      t.equal(await store.hasResponse('ten_a', 'k', at(2)), true);
      t.equal(await store.hasResponse('ten_b', 'k', at(2)), false, "another tenant's");
      t.equal(await store.hasResponse('ten_a', 'k', at(IDEMPOTENCY_RETENTION_MS - 1)), true);
      t.equal(await store.hasResponse('ten_a', 'k', at(IDEMPOTENCY_RETENTION_MS)), false, 'expired');
    });

    t.test('keys are scoped to the tenant', async (t) => {
      const { store } = await open(t);
      t.same(await store.begin('ten_a', 'k', 'fp1', T0), { state: 'started' });
      t.same(await store.begin('ten_b', 'k', 'fp2', T0), { state: 'started' });
      await store.complete('ten_a', 'k', response);
      t.same(await store.begin('ten_b', 'k', 'fp2', at(1)), { state: 'in_progress' }, "another tenant's completion is not ours");
    });

    t.test('release frees an in-progress claim but never a completed record', async (t) => {
      const { store } = await open(t);
      await store.begin('ten_a', 'k', 'fp1', T0);
      await store.release('ten_a', 'k');
      t.same(await store.begin('ten_a', 'k', 'fp2', at(1)), { state: 'started' }, 'a retry may even change content');
      await store.complete('ten_a', 'k', response);
      await store.release('ten_a', 'k');
      t.same(await store.begin('ten_a', 'k', 'fp2', at(2)), { state: 'completed', response });
      await store.release('ten_a', 'missing');
      t.pass('releasing an absent key is a no-op');
    });

    t.test('claims in progress of an instance no longer registered are dropped; live ones and completed records stay', async (t) => {
      const { ownedBy, instances } = await open(t);
      const [alive, dead] = [await ownedBy('inst_alive'), await ownedBy('inst_dead')];
      await instances.register('inst_alive', 'api', T0.getTime(), 30_000);
      await instances.register('inst_dead', 'api', T0.getTime(), 30_000);
      await alive.begin('ten_a', 'alive', 'fp', T0);
      await dead.begin('ten_a', 'dead', 'fp', T0);
      await dead.begin('ten_a', 'done', 'fp', T0);
      await dead.complete('ten_a', 'done', response);
      t.equal(await alive.releaseClaimsOfDeadInstances(), 0, 'both owners registered: nothing to drop');
      t.same(await instances.reapDead(T0.getTime(), { allBut: 'inst_alive' }), ['inst_dead']);
      t.equal(await alive.releaseClaimsOfDeadInstances(), 1);
      t.same(await alive.begin('ten_a', 'dead', 'fp', at(1)), { state: 'started' }, "the dead request's retry starts afresh");
      t.same(await alive.begin('ten_a', 'alive', 'fp', at(1)), { state: 'in_progress' }, "a live instance's claim stays");
      t.same(await alive.begin('ten_a', 'done', 'fp', at(1)), { state: 'completed', response }, 'a completed record stays');
    });

    t.test('records expire 24 hours after the first request', async (t) => {
      const { store } = await open(t);
      await store.begin('ten_a', 'done', 'fp1', T0);
      await store.complete('ten_a', 'done', response);
      await store.begin('ten_a', 'stuck', 'fp1', T0);
      t.same(await store.begin('ten_a', 'done', 'fp2', at(IDEMPOTENCY_RETENTION_MS - 1)), { state: 'conflict' });
      t.same(await store.begin('ten_a', 'stuck', 'fp1', at(IDEMPOTENCY_RETENTION_MS - 1)), { state: 'in_progress' });
      t.same(await store.begin('ten_a', 'done', 'fp2', at(IDEMPOTENCY_RETENTION_MS)), { state: 'started' }, 'expired: treated as absent');
      t.same(await store.begin('ten_a', 'stuck', 'fp1', at(IDEMPOTENCY_RETENTION_MS)), { state: 'started' });
      t.same(await store.begin('ten_a', 'done', 'fp2', at(IDEMPOTENCY_RETENTION_MS + 1)), { state: 'in_progress' }, 'the new claim counts from now');
      await store.complete('ten_a', 'done', response);
      t.same(await store.begin('ten_a', 'done', 'fp2', at(IDEMPOTENCY_RETENTION_MS + 2)), { state: 'completed', response }, 'and completes like a new one');
    });

    t.test('sweep deletes records older than 24 hours', async (t) => {
      const { store } = await open(t);
      await store.begin('ten_a', 'old', 'fp', T0);
      await store.complete('ten_a', 'old', response);
      await store.begin('ten_a', 'older', 'fp', at(-1000));
      await store.begin('ten_a', 'young', 'fp', at(60_000));
      t.equal(await store.sweep(at(IDEMPOTENCY_RETENTION_MS - 1001)), 0);
      t.equal(await store.sweep(at(IDEMPOTENCY_RETENTION_MS)), 2);
      t.same(await store.begin('ten_a', 'young', 'fp', at(IDEMPOTENCY_RETENTION_MS)), { state: 'in_progress' });
      t.same(await store.begin('ten_a', 'old', 'other', at(IDEMPOTENCY_RETENTION_MS)), { state: 'started' });
    });

    t.test('responses keep their exact body and headers', async (t) => {
      const { store } = await open(t);
      const exotic: StoredResponse = { status: 202, headers: { 'x-note': 'é "quoted"' }, body: 'plain text\nwith ünïcode ✓' };
      await store.begin('ten_a', 'k', 'fp', T0);
      await store.complete('ten_a', 'k', exotic);
      t.same(await store.begin('ten_a', 'k', 'fp', at(1)), { state: 'completed', response: exotic });
      const empty: StoredResponse = { status: 204, headers: {}, body: '' };
      await store.begin('ten_a', 'empty', 'fp', T0);
      await store.complete('ten_a', 'empty', empty);
      t.same(await store.begin('ten_a', 'empty', 'fp', at(1)), { state: 'completed', response: empty });
    });

    t.test('stores on separate connections racing for the same keys: exactly one started per key', async (t) => {
      const { store, another } = await open(t);
      const stores = [store, await another()];
      const keys = Array.from({ length: 100 }, (_, i) => `k${i}`);
      const outcomes = await Promise.all(
        keys.map(async (key) => {
          const states = await Promise.all(stores.map((s) => s.begin('ten_race', key, 'same-fingerprint', T0)));
          return states
            .map((s) => s.state)
            .sort()
            .join('+');
        }),
      );
      t.same(
        outcomes.filter((pair) => pair !== 'in_progress+started'),
        [],
        'every key: one started, one in_progress',
      );
    });

    t.test('many callers on one key, fresh and after expiry: one started each time', async (t) => {
      const { store, another } = await open(t);
      const stores = [store, await another(), store, await another()];
      const race = async (now: Date) => {
        const states = await Promise.all(stores.flatMap((s) => [s.begin('ten_race', 'k', 'fp', now), s.begin('ten_race', 'k', 'fp', now)]));
        return states.map((s) => s.state);
      };
      const fresh = await race(T0);
      t.equal(fresh.filter((s) => s === 'started').length, 1, 'a fresh key');
      t.equal(fresh.filter((s) => s === 'in_progress').length, fresh.length - 1);
      const expired = await race(at(IDEMPOTENCY_RETENTION_MS));
      t.equal(expired.filter((s) => s === 'started').length, 1, 'an expired claim is taken over once');
      await store.release('ten_race', 'k');
      const released = await race(at(IDEMPOTENCY_RETENTION_MS + 1));
      t.equal(released.filter((s) => s === 'started').length, 1, 'a released key');
    });
  });
}
