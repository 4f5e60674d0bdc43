// The RealtimeSeatStore contract, run against every implementation (test/store/realtime-seat-store.test.ts):
// a project's limits hold across processes (stores on their own connections, each for its own
// instance), speaker seats inside session seats, releases, seats of dead instances not counted and
// cleared, and starts racing for the last seats never over-taking.
import type { Test } from 'tap';

import type { InstanceRegistry } from '../../../src/store/instance-registry.js';
import type { RealtimeSeatStore } from '../../../src/store/realtime-seat-store.js';

export interface RealtimeSeatStoreHarness {
  /** A seat store for `instanceId` on a connection of its own, as that instance's process has. */
  seatsFor(instanceId: string): Promise<RealtimeSeatStore>;
  instances: InstanceRegistry;
  close(): Promise<void>;
}

const T0 = Date.parse('2032-01-02T03:04:05.000Z');
const TTL = 15_000;
const BUILDER = { sessions: 2, speakerSessions: 1 };

export function realtimeSeatStoreContract(t: Test, name: string, make: (t: Test) => Promise<RealtimeSeatStoreHarness>): void {
  const open = async (t: Test) => {
    const harness = await make(t);
    t.teardown(() => harness.close());
    await harness.instances.register('inst_a', 'api', T0, TTL);
    await harness.instances.register('inst_b', 'api', T0, TTL);
    return { ...harness, a: await harness.seatsFor('inst_a'), b: await harness.seatsFor('inst_b') };
  };

  t.test(`${name}: RealtimeSeatStore contract`, async (t) => {
    t.test("a project's limits hold across processes; speaker seats within them; releases give seats back", async (t) => {
      const { a, b } = await open(t);
      t.equal(await a.take({ seatId: 's1', tenant: 'p1', speakers: true }, BUILDER, T0), 'taken');
      t.equal(await b.take({ seatId: 's2', tenant: 'p1', speakers: true }, BUILDER, T0), 'speakers_full', 'the one speaker seat is held by the other process');
      t.equal(await b.take({ seatId: 's3', tenant: 'p1', speakers: false }, BUILDER, T0), 'taken', 'text seats remain');
      t.equal(await a.take({ seatId: 's4', tenant: 'p1', speakers: false }, BUILDER, T0), 'sessions_full');
      t.equal(await a.take({ seatId: 's5', tenant: 'p1', speakers: true }, BUILDER, T0), 'sessions_full', 'sessions are checked first');
      t.equal(await b.take({ seatId: 's6', tenant: 'p2', speakers: true }, BUILDER, T0), 'taken', 'another project has its own seats');
      t.same(await b.held('p1', T0), { sessions: 2, speakerSessions: 1 });
      await b.release('s1');
      await b.release('s1');
      t.same(await a.held('p1', T0), { sessions: 1, speakerSessions: 0 }, 'any process may release; releasing twice is harmless');
      t.equal(await a.take({ seatId: 's7', tenant: 'p1', speakers: true }, BUILDER, T0), 'taken');
      t.same(await a.held('p3', T0), { sessions: 0, speakerSessions: 0 });
    });

    t.test('seats of a dead instance do not count, and are cleared once it is reaped', async (t) => {
      const { a, b, instances } = await open(t);
      t.equal(await b.take({ seatId: 's1', tenant: 'p1', speakers: true }, BUILDER, T0), 'taken');
      t.equal(await b.take({ seatId: 's2', tenant: 'p1', speakers: false }, BUILDER, T0), 'taken');
      await instances.heartbeat('inst_a', T0 + TTL, TTL);
      const later = T0 + TTL + 1;
      t.same(await a.held('p1', later), { sessions: 0, speakerSessions: 0 }, 'inst_b stopped beating: its seats no longer count');
      t.equal(await a.take({ seatId: 's3', tenant: 'p1', speakers: true }, BUILDER, later), 'taken');
      t.same(await instances.reapDead(later), ['inst_b']);
      t.equal(await b.take({ seatId: 's9', tenant: 'p9', speakers: false }, BUILDER, T0), 'taken', "another project's seat of the reaped instance");
      t.equal(await a.releaseSeatsOfDeadInstances(), 3, "the sweep deletes the reaped instance's seats, of every project");
      t.same(await a.held('p9', T0), { sessions: 0, speakerSessions: 0 });
      t.equal(await a.take({ seatId: 's4', tenant: 'p1', speakers: false }, BUILDER, later), 'taken');
      // The reaped instance registers again (instance-lifecycle.ts does): its rows are gone.
      await instances.register('inst_b', 'api', later, TTL);
      t.same(await a.held('p1', later), { sessions: 2, speakerSessions: 1 }, "the reaped instance's seats were cleared");
    });

    t.test("starts racing for a project's last seats from two processes never over-take", async (t) => {
      const { a, b } = await open(t);
      const limits = { sessions: 3, speakerSessions: 3 };
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).take({ seatId: `race${i}`, tenant: 'p1', speakers: i % 3 === 0 }, limits, T0)),
      );
      t.equal(outcomes.filter((o) => o === 'taken').length, 3);
      t.same(await a.held('p1', T0), { sessions: 3, speakerSessions: outcomes.filter((o, i) => o === 'taken' && i % 3 === 0).length });
    });
  });
}
