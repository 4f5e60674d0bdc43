// The RealtimeClientSecretStore contract, run against every implementation
// (test/store/realtime-client-secret-store.test.ts): a secret is shown once and stored as its hash,
// gives its key's id to the first claim only, never after its expiry, and never for a malformed or
// unknown value; claims racing from two processes for one secret have exactly one winner; expired
// rows are swept, by minting too.
import { createHash } from 'node:crypto';

import type { Test } from 'tap';

import type { KeyStore } from '../../../src/store/key-store.js';
import type { RealtimeClientSecretStore } from '../../../src/store/realtime-client-secret-store.js';

export interface RealtimeClientSecretStoreHarness {
  store: RealtimeClientSecretStore;
  /** Another store on a connection of its own, as another process has. */
  another(): Promise<RealtimeClientSecretStore>;
  /** Keys on the same database (secrets belong to keys). */
  keys: KeyStore;
  /** The rows of `realtime_client_secrets` as stored. */
  rawRows(): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

const T0 = Date.parse('2032-01-02T03:04:05.000Z');
const SECRET = /^ek_[A-Za-z0-9_-]{43}$/;

export function realtimeClientSecretStoreContract(t: Test, name: string, make: (t: Test) => Promise<RealtimeClientSecretStoreHarness>): void {
  const open = async (t: Test) => {
    const harness = await make(t);
    t.teardown(() => harness.close());
    const { record } = await harness.keys.create({ tenant: 'acme' });
    return { ...harness, keyId: record.id };
  };

  t.test(`${name}: RealtimeClientSecretStore contract`, async (t) => {
    t.test('a minted secret is shown once, stored as its SHA-256 only, and gives its key to the first claim only', async (t) => {
      const { store, keyId, rawRows } = await open(t);
      const secret = await store.mint(keyId, T0, T0 + 60_000);
      t.match(secret, SECRET, 'ek_ and 256 random bits in base64url');
      t.not(await store.mint(keyId, T0, T0 + 60_000), secret, 'every secret is new');
      const rows = await rawRows();
      t.equal(rows.length, 2);
      const hash = createHash('sha256').update(secret.slice(3), 'utf8').digest();
      t.ok(
        rows.some((row) => Buffer.from(row.secret_sha256 as Uint8Array).equals(hash)),
        'the row holds the hash',
      );
      t.notMatch(JSON.stringify(rows), secret.slice(3), 'never the secret');
      t.equal(await store.claim(secret, T0 + 1_000), keyId, 'the first claim gets the key');
      t.equal(await store.claim(secret, T0 + 2_000), null, 'a second claim gets nothing');
    });

    t.test('an expired secret, an unknown one and a malformed one give nothing', async (t) => {
      const { store, keyId } = await open(t);
      const secret = await store.mint(keyId, T0, T0 + 10_000);
      t.equal(await store.claim(secret, T0 + 10_000), null, 'at its expiry it is no longer valid');
      const unknown = `ek_${'A'.repeat(43)}`;
      t.equal(await store.claim(unknown, T0), null);
      for (const malformed of ['', secret.slice(3), `${secret}x`, `sk_${secret.slice(3)}`, 'ek_short']) {
        t.equal(await store.claim(malformed, T0), null, 'malformed');
      }
      const live = await store.mint(keyId, T0, T0 + 10_000);
      t.equal(await store.claim(live, T0 + 9_999), keyId, 'a millisecond before its expiry it is');
    });

    t.test('claims racing from two processes for one secret: exactly one gets the key', async (t) => {
      const { store, another, keyId } = await open(t);
      const other = await another();
      for (let round = 0; round < 5; round++) {
        const secret = await store.mint(keyId, T0, T0 + 60_000);
        const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? store : other).claim(secret, T0 + 1_000)));
        t.equal(outcomes.filter((o) => o === keyId).length, 1, `round ${round}: one winner`);
        t.equal(outcomes.filter((o) => o === null).length, 7);
      }
    });

    t.test('expired secrets are swept, used or not, by sweep and by the next mint; live ones stay', async (t) => {
      const { store, keyId, rawRows } = await open(t);
      const used = await store.mint(keyId, T0, T0 + 10_000);
      await store.claim(used, T0 + 1);
      await store.mint(keyId, T0, T0 + 10_000);
      const live = await store.mint(keyId, T0, T0 + 60_000);
      t.equal(await store.sweep(T0 + 9_999), 0, 'nothing expired yet');
      t.equal(await store.sweep(T0 + 10_000), 2, 'the used and the unused expired one');
      t.equal((await rawRows()).length, 1);
      await store.mint(keyId, T0 + 60_000, T0 + 120_000);
      t.equal((await rawRows()).length, 1, 'minting swept the one that expired meanwhile');
      t.equal(await store.claim(live, T0 + 60_000), null);
    });

    t.test("each secret gives the key it was minted for, never another's", async (t) => {
      const { store, keys, keyId } = await open(t);
      const secret = await store.mint(keyId, T0, T0 + 60_000);
      const { record: other } = await keys.create({ tenant: 'other' });
      const theirs = await store.mint(other.id, T0, T0 + 60_000);
      t.equal(await store.claim(theirs, T0), other.id);
      t.equal(await store.claim(secret, T0), keyId);
    });
  });
}
