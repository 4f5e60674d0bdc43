// The InstanceRegistry contract, run against every implementation (test/store/instance-registry.test.ts):
// registration, heartbeats, who counts as dead (expired heartbeat; with `allBut`, everyone else), and
// a reaped instance learning it was declared dead from its next heartbeat.
import type { Test } from 'tap';

import type { InstanceRegistry } from '../../../src/store/instance-registry.js';

export interface InstanceRegistryHarness {
  registry: InstanceRegistry;
  /** Another registry on the same database through its own connection(s), as another process has. */
  another(): Promise<InstanceRegistry>;
  close(): Promise<void>;
}

const T0 = Date.parse('2032-01-02T03:04:05.000Z');
const TTL = 15_000;

export function instanceRegistryContract(t: Test, name: string, make: (t: Test) => Promise<InstanceRegistryHarness>): void {
  const open = async (t: Test) => {
    const harness = await make(t);
    t.teardown(() => harness.close());
    return harness;
  };

  t.test(`${name}: InstanceRegistry contract`, async (t) => {
    t.test('registered instances are live until their heartbeat expires', async (t) => {
      const { registry, another } = await open(t);
      const other = await another();
      await registry.register('inst_a', 'api', T0, TTL);
      await other.register('inst_b', 'worker', T0 + 1, TTL);
      t.match(await registry.live(T0 + 2), [
        { id: 'inst_a', role: 'api', startedAtMs: T0, heartbeatAtMs: T0, expiresAtMs: T0 + TTL },
        { id: 'inst_b', role: 'worker', startedAtMs: T0 + 1 },
      ]);
      t.ok(await registry.heartbeat('inst_a', T0 + 10_000, TTL));
      t.same(await registry.reapDead(T0 + TTL + 1), ['inst_b'], 'only the one whose heartbeat expired');
      t.same(
        (await other.live(T0 + TTL + 1)).map((i) => i.id),
        ['inst_a'],
      );
      t.notOk(await other.heartbeat('inst_b', T0 + TTL + 2, TTL), 'a reaped instance learns it from its next heartbeat');
      t.same(await registry.reapDead(T0 + TTL + 1), [], 'reaping is idempotent');
    });

    t.test('the embedded server reaps every instance but itself', async (t) => {
      const { registry } = await open(t);
      await registry.register('inst_old', 'all', T0, TTL);
      await registry.register('inst_new', 'all', T0 + 5, TTL);
      t.same(await registry.reapDead(T0 + 6, { allBut: 'inst_new' }), ['inst_old'], 'even with a fresh heartbeat');
      t.same(
        (await registry.live(T0 + 6)).map((i) => i.id),
        ['inst_new'],
      );
    });

    t.test('registering again refreshes the heartbeat and keeps the start time; deregister removes', async (t) => {
      const { registry } = await open(t);
      await registry.register('inst_a', 'worker', T0, TTL);
      await registry.register('inst_a', 'worker', T0 + 20_000, TTL);
      t.match(await registry.live(T0 + 20_000), [{ id: 'inst_a', startedAtMs: T0, heartbeatAtMs: T0 + 20_000 }]);
      await registry.deregister('inst_a');
      t.same(await registry.live(T0 + 20_000), []);
      t.notOk(await registry.heartbeat('inst_a', T0 + 20_001, TTL));
    });
  });
}
