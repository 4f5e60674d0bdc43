// The key watch (src/billing/key-standing-watch.ts) told by the store of a rotated key's end: open
// work under a key whose overlap ended is cut off as revoked, before any sweep revokes it for good,
// because the watch reads the key through the store and the store judges revoke_at by its clock
// (openStores' clock, the service's).
import t from 'tap';

import { type KeyCutOff, KeyStandingWatch } from '../../src/billing/key-standing-watch.js';
import { openStores } from '../../src/store/open-stores.js';

const HOUR = 3_600_000;

t.test("open work under a rotated key is cut off as revoked once the overlap ends, the new key's goes on", async (t) => {
  const clock = { nowMs: Date.parse('2031-05-20T12:00:00.000Z') };
  const stores = await openStores({
    instanceId: 'watch-test',
    dataDir: t.testdir(),
    databaseUrl: null,
    webhookMasterKey: () => Buffer.alloc(32, 7),
    clock: () => clock.nowMs,
  });
  t.teardown(() => stores.close());
  const old = await stores.keys.create({ tenant: 'clinic-watch' });
  const rotated = await stores.keys.rotate(old.record.id, new Date(clock.nowMs + HOUR));
  const watch = new KeyStandingWatch(stores.keys, 5);
  t.teardown(() => watch.close());
  const told: Array<[string, KeyCutOff]> = [];
  const oldCutOff = new Promise<KeyCutOff>((resolve) => watch.watch(old.record.id, resolve));
  watch.watch(rotated.record.id, (cutOff) => told.push([rotated.record.id, cutOff]));

  clock.nowMs += HOUR;
  // The watch's timer is unref'd (it must not hold a service open): a ref'd one keeps this process
  // alive until the watch has told, or fails the test past 10 s.
  let limit: NodeJS.Timeout | undefined;
  const tooLong = new Promise<never>((_, reject) => (limit = setTimeout(() => reject(new Error('the watch did not tell within 10 s')), 10_000)));
  t.equal(await Promise.race([oldCutOff, tooLong]), 'revoked', 'the old key: revoked, with no sweep yet');
  clearTimeout(limit);
  t.equal((await stores.keys.get(old.record.id))!.revokedAt, new Date(clock.nowMs).toISOString());
  t.same(told, [], 'the new key is not cut off');
});
