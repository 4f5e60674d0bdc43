// The VoiceProfileStore contract, run against every implementation (test/store/voice-profile-store.test.ts):
// a voice is stored with its statistics and read back exactly, listed without them, per tenant only
// (another tenant's id reads, lists and deletes as unknown), deleted at once with its row, refused
// past the per-tenant limit, and the limit holds when two processes enrol at once.
import type { Test } from 'tap';

import type { VoiceProfile } from '../../../src/engine/speaker-diarizer.js';
import { MAX_VOICES_PER_TENANT, VoiceLimitReached, type VoiceProfileStore } from '../../../src/store/voice-profile-store.js';

export interface VoiceProfileStoreHarness {
  store: VoiceProfileStore;
  /** Another store on a connection of its own, as another process has. */
  another(): Promise<VoiceProfileStore>;
  /** The rows of `voice_profiles` as stored. */
  rawRows(): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

const T0 = Date.parse('2032-01-02T03:04:05.000Z');

function profile(seed: number): VoiceProfile {
  const mean = Float64Array.from({ length: 19 }, (_, i) => Math.sin(seed + i) * 3.25);
  const covariance = new Float64Array(19 * 19);
  for (let i = 0; i < 19; i++) covariance[i * 19 + i] = 1 + seed / 7 + i / 3;
  covariance[1] = covariance[19] = 0.125;
  // Odd seeds carry pitch; even ones are as profiles enrolled before pitch was kept.
  const pitch = seed % 2 === 1 ? { frames: 200 + seed, mean: 4.8 + seed / 64, variance: 0.0125 + seed / 1024 } : undefined;
  return pitch ? { frames: 300 + seed, mean, covariance, pitch } : { frames: 300 + seed, mean, covariance };
}

export function voiceProfileStoreContract(t: Test, name: string, make: (t: Test) => Promise<VoiceProfileStoreHarness>): void {
  const open = async (t: Test) => {
    const harness = await make(t);
    t.teardown(() => harness.close());
    return harness;
  };

  t.test(`${name}: VoiceProfileStore contract`, async (t) => {
    t.test('a voice reads back exactly; listings carry no statistics; oldest first', async (t) => {
      const { store } = await open(t);
      const first = await store.create('clinic-a', 'Dr Ames', profile(1), T0);
      const second = await store.create('clinic-a', 'Nurse Ray', profile(2), T0 + 1000);
      t.match(first.id, /^voice_[0-9A-Za-z]{24}$/);
      t.same(first, { id: first.id, name: 'Dr Ames', createdAt: '2032-01-02T03:04:05.000Z' });
      const read = await store.get('clinic-a', first.id);
      t.equal(read?.name, 'Dr Ames');
      t.same([...read!.profile.mean], [...profile(1).mean], 'the means exactly');
      t.same([...read!.profile.covariance], [...profile(1).covariance], 'the covariances exactly');
      t.equal(read!.profile.frames, 301);
      t.same(read!.profile.pitch, profile(1).pitch, 'the pitch statistics exactly');
      t.equal((await store.get('clinic-a', second.id))!.profile.pitch, undefined, 'a profile without pitch reads back without it');
      t.same(await store.list('clinic-a'), [first, second]);
    });

    t.test("another tenant's voice is unknown: not read, not listed, not deleted", async (t) => {
      const { store, rawRows } = await open(t);
      const voice = await store.create('clinic-a', 'Dr Ames', profile(1), T0);
      t.equal(await store.get('clinic-b', voice.id), null);
      t.same(await store.list('clinic-b'), []);
      t.equal(await store.remove('clinic-b', voice.id), false);
      t.equal((await rawRows()).length, 1, 'still there for its tenant');
      t.equal(await store.get('clinic-a', 'voice_not-an-id'), null, 'a malformed id is unknown');
      t.equal(await store.remove('clinic-a', `voice_${'x'.repeat(24)}`), false, 'an unknown id deletes nothing');
    });

    t.test('deletion removes the row at once', async (t) => {
      const { store, rawRows } = await open(t);
      const voice = await store.create('clinic-a', 'Dr Ames', profile(1), T0);
      t.equal(await store.remove('clinic-a', voice.id), true);
      t.equal(await store.get('clinic-a', voice.id), null);
      t.same(await rawRows(), [], 'no row, no tombstone');
      t.equal(await store.remove('clinic-a', voice.id), false, 'a second delete finds nothing');
    });

    t.test('the per-tenant limit, also when two processes enrol at once', async (t) => {
      const { store, another } = await open(t);
      for (let i = 0; i < MAX_VOICES_PER_TENANT - 1; i++) await store.create('clinic-a', `voice ${i}`, profile(i), T0 + i);
      const other = await another();
      const raced = await Promise.allSettled([store.create('clinic-a', 'last one', profile(1), T0), other.create('clinic-a', 'or this', profile(2), T0)]);
      t.equal(raced.filter((r) => r.status === 'fulfilled').length, 1, 'one takes the last place');
      const refused = raced.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      t.ok(refused.reason instanceof VoiceLimitReached, 'the other is refused as over the limit');
      t.equal((await store.list('clinic-a')).length, MAX_VOICES_PER_TENANT);
      await store.create('clinic-b', 'Dr Ames', profile(1), T0);
      t.pass('another tenant has its own limit');
    });
  });
}
