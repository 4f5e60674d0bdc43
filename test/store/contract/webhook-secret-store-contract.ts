// The WebhookSecretStore contract, run against every implementation (test/store/webhook-secret-store.test.ts):
// versions, rotation with its 24-hour overlap, encryption at rest under the master key (bound to
// the row), refusals for unknown and revoked keys, and concurrent admin commands on one key.
import { randomBytes } from 'node:crypto';

import type { Test } from 'tap';

import { SECRET_ROTATION_OVERLAP_MS, WebhookSecretError, type WebhookSecretStore } from '../../../src/store/webhook-secret-store.js';
import { signingKeyOf } from '../../../src/store/webhook-signing-secret.js';
import type { KeyStoreUnderTest } from './key-store-contract.js';
import { failureOf, refuses } from './refusal.js';

export interface SecretRowRef {
  keyId: string;
  version: number;
}

export interface WebhookSecretStoreHarness {
  /** Sealing under the master key the contract passed to `make`. */
  secrets: WebhookSecretStore;
  /** The API keys of the same database. */
  keys: KeyStoreUnderTest;
  /** A store on the same database under another master key. */
  withMasterKey(masterKey: Buffer): WebhookSecretStore;
  /** Another store (same master key) on the same database through its own connection(s). */
  another(): Promise<WebhookSecretStore>;
  /** A key's `webhook_secrets` rows as stored (column name -> value), oldest version first. */
  rawSecretRows(keyId: string): Promise<Array<Record<string, unknown>>>;
  /** Copies the sealed bytes (ciphertext, iv, auth_tag) of one row into another, as a tampered database would hold them. */
  copySealed(from: SecretRowRef, to: SecretRowRef): Promise<void>;
  close(): Promise<void>;
}

export type MakeWebhookSecretStore = (t: Test, masterKey: Buffer) => Promise<WebhookSecretStoreHarness>;

const T0 = Date.parse('2031-03-04T05:06:07.000Z');
const HOUR = 3600_000;
const DAY = 24 * HOUR;

export function webhookSecretStoreContract(t: Test, name: string, make: MakeWebhookSecretStore): void {
  const open = async (t: Test) => {
    const masterKey = randomBytes(32);
    const harness = await make(t, masterKey);
    t.teardown(() => harness.close());
    return { ...harness, masterKey, newKey: async () => (await harness.keys.create()).record.id };
  };
  const refusesWith = (t: Test, call: () => Promise<unknown>, message: RegExp, what: string) => refuses(t, call, WebhookSecretError, { message }, what);

  t.test(`${name}: WebhookSecretStore contract`, async (t) => {
    t.test('create: version 1, active, its key opens for signing', async (t) => {
      const { secrets, newKey } = await open(t);
      const keyId = await newKey();
      t.equal(await secrets.activeVersion(keyId, T0), null, 'no secret yet');
      t.same(await secrets.list(keyId, T0), [], 'nothing listed yet');
      const created = await secrets.create(keyId, T0);
      t.equal(created.version, 1);
      t.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      t.equal(await secrets.activeVersion(keyId, T0), 1);
      t.same(await secrets.signingKey(keyId, 1, T0), signingKeyOf(created.secret), 'the stored key is the one shown');
      t.same(await secrets.signingKey(keyId, 1, T0 + 365 * DAY), signingKeyOf(created.secret), 'an active version never expires');
      t.same(await secrets.list(keyId, T0), [{ version: 1, createdAt: new Date(T0).toISOString(), state: 'active', usableUntil: null, revokedAt: null }]);
      t.equal(await secrets.signingKey(keyId, 2, T0), null, 'no such version');

      await refusesWith(t, () => secrets.create(keyId, T0 + 1000), /already has an active webhook signing secret \(version 1\); use rotate/, 'a second create');
      t.equal((await secrets.list(keyId, T0)).length, 1, 'nothing added');

      const other = await newKey();
      t.equal((await secrets.create(other, T0)).version, 1, 'versions count per key');
    });

    t.test('rotate: a new active version; the old one signs until exactly 24 h after, not after', async (t) => {
      const { secrets, newKey } = await open(t);
      const keyId = await newKey();
      await refusesWith(t, () => secrets.rotate(keyId, T0), /has no webhook signing secret to rotate; use create/, 'rotate before create');
      const first = await secrets.create(keyId, T0);
      const rotatedAt = T0 + 5 * HOUR;
      const second = await secrets.rotate(keyId, rotatedAt);
      t.equal(second.version, 2);
      t.not(second.secret, first.secret);
      t.equal(await secrets.activeVersion(keyId, rotatedAt), 2);
      t.same(await secrets.signingKey(keyId, 2, rotatedAt), signingKeyOf(second.secret));

      t.equal(SECRET_ROTATION_OVERLAP_MS, DAY);
      const deadline = rotatedAt + DAY;
      t.same(await secrets.signingKey(keyId, 1, rotatedAt), signingKeyOf(first.secret), 'right after the rotation');
      t.same(await secrets.signingKey(keyId, 1, deadline), signingKeyOf(first.secret), 'exactly 24 h after');
      t.equal(await secrets.signingKey(keyId, 1, deadline + 1), null, '1 ms later it no longer signs');
      t.same(await secrets.signingKey(keyId, 2, deadline + 1), signingKeyOf(second.secret), 'the new one does');

      const summary = (state: string) => ({
        version: 1,
        createdAt: new Date(T0).toISOString(),
        state,
        usableUntil: new Date(deadline).toISOString(),
        revokedAt: null,
      });
      const active = { version: 2, createdAt: new Date(rotatedAt).toISOString(), state: 'active', usableUntil: null, revokedAt: null };
      t.same(await secrets.list(keyId, deadline), [summary('previous'), active]);
      t.same(await secrets.list(keyId, deadline + 1), [summary('expired'), active]);
    });

    t.test('a second rotation within 24 h keeps the first previous version its own deadline', async (t) => {
      const { secrets, newKey } = await open(t);
      const keyId = await newKey();
      const v1 = await secrets.create(keyId, T0);
      const r1 = T0 + HOUR;
      const v2 = await secrets.rotate(keyId, r1);
      const r2 = r1 + 3 * HOUR;
      const v3 = await secrets.rotate(keyId, r2);
      t.equal(v3.version, 3);
      t.equal(await secrets.activeVersion(keyId, r2), 3);
      t.same(await secrets.signingKey(keyId, 1, r1 + DAY), signingKeyOf(v1.secret), 'version 1 still until r1 + 24 h');
      t.equal(await secrets.signingKey(keyId, 1, r1 + DAY + 1), null, 'not moved by the second rotation');
      t.same(await secrets.signingKey(keyId, 2, r2 + DAY), signingKeyOf(v2.secret), 'version 2 until r2 + 24 h');
      t.equal(await secrets.signingKey(keyId, 2, r2 + DAY + 1), null);
      t.same(
        (await secrets.list(keyId, r1 + DAY + 1)).map(({ version, state, usableUntil }) => [version, state, usableUntil]),
        [
          [1, 'expired', new Date(r1 + DAY).toISOString()],
          [2, 'previous', new Date(r2 + DAY).toISOString()],
          [3, 'active', null],
        ],
      );
    });

    t.test('signingKeys: every version that may sign now, the active one first, then the newest superseded ones', async (t) => {
      const { secrets, newKey } = await open(t);
      const keyId = await newKey();
      const keysAt = async (nowMs: number) => (await secrets.signingKeys(keyId, nowMs)).map(({ version, key }) => [version, key.toString('base64')]);
      const entry = (version: number, secret: string) => [version, signingKeyOf(secret).toString('base64')];
      t.same(await secrets.signingKeys(keyId, T0), [], 'none before create');
      t.same(await secrets.signingKeys('sk_live_unknown', T0), [], 'none for an unknown key');
      const v1 = await secrets.create(keyId, T0);
      t.same(await keysAt(T0 + 365 * DAY), [entry(1, v1.secret)], 'the active one alone, at any time');
      const r1 = T0 + HOUR;
      const v2 = await secrets.rotate(keyId, r1);
      t.same(await keysAt(r1), [entry(2, v2.secret), entry(1, v1.secret)], 'right after a rotation: the new one, then the previous');
      const r2 = r1 + 3 * HOUR;
      const v3 = await secrets.rotate(keyId, r2);
      t.same(await keysAt(r2), [entry(3, v3.secret), entry(2, v2.secret), entry(1, v1.secret)], 'two rotations within 24 h: all three');
      t.same(await keysAt(r1 + DAY), [entry(3, v3.secret), entry(2, v2.secret), entry(1, v1.secret)], 'version 1 up to exactly 24 h after its rotation');
      t.same(await keysAt(r1 + DAY + 1), [entry(3, v3.secret), entry(2, v2.secret)], 'then not');
      t.same(await keysAt(r2 + DAY + 1), [entry(3, v3.secret)], 'after both overlaps only the active one');
      for (const nowMs of [r1, r1 + DAY, r1 + DAY + 1, r2 + DAY, r2 + DAY + 1]) {
        const listed = (await secrets.list(keyId, nowMs)).filter((s) => s.state !== 'expired').map((s) => s.version);
        t.same((await secrets.signingKeys(keyId, nowMs)).map((k) => k.version).sort(), listed, `the same rule as list's states at ${nowMs - T0} ms`);
      }
    });

    t.test('revoke: every version that still signs stops at once, the overlap too; then create starts again', async (t) => {
      const { secrets, keys, newKey } = await open(t);
      const keyId = await newKey();
      await refusesWith(t, () => secrets.revoke(keyId, T0), /has no webhook signing secret that still signs; nothing to revoke/, 'nothing yet');
      await refusesWith(t, () => secrets.revoke('key_ZZZZZZZZZZZZ', T0), /^no API key with id 'key_ZZZZZZZZZZZZ'$/, 'an unknown key');
      await secrets.create(keyId, T0);
      await secrets.rotate(keyId, T0 + HOUR);
      await secrets.rotate(keyId, T0 + 2 * DAY);
      const revokedAt = T0 + 2 * DAY + HOUR;
      t.same(await secrets.revoke(keyId, revokedAt), [2, 3], 'the active one and the previous one within its 24 h; not the expired one');
      t.equal(await secrets.activeVersion(keyId, revokedAt), null, 'no active secret: a webhook_url request is refused');
      t.same(await secrets.signingKeys(keyId, revokedAt), [], 'none signs, at the very instant');
      t.equal(await secrets.signingKey(keyId, 2, revokedAt), null, 'not even within the overlap');
      t.equal(await secrets.signingKey(keyId, 3, revokedAt), null);
      t.same(
        (await secrets.list(keyId, revokedAt)).map(({ version, state, usableUntil, revokedAt }) => [version, state, usableUntil, revokedAt]),
        [
          [1, 'expired', new Date(T0 + HOUR + DAY).toISOString(), null],
          [2, 'revoked', new Date(T0 + 3 * DAY).toISOString(), new Date(revokedAt).toISOString()],
          [3, 'revoked', null, new Date(revokedAt).toISOString()],
        ],
      );
      await refusesWith(t, () => secrets.revoke(keyId, revokedAt + 1), /nothing to revoke/, 'a second revoke');
      await refusesWith(t, () => secrets.rotate(keyId, revokedAt + 1), /no webhook signing secret to rotate; use create/, 'nothing to rotate');
      const fresh = await secrets.create(keyId, revokedAt + 2);
      t.equal(fresh.version, 4, 'create makes the next version');
      t.same(
        (await secrets.signingKeys(keyId, revokedAt + 2)).map((k) => [k.version, k.key.toString('base64')]),
        [[4, signingKeyOf(fresh.secret).toString('base64')]],
        'and it alone signs',
      );

      const revokedKey = await newKey();
      await secrets.create(revokedKey, T0);
      await keys.revoke(revokedKey);
      t.same(await secrets.revoke(revokedKey, T0 + 1), [1], "a revoked API key's secret can be revoked too");
    });

    t.test('at rest: the rows hold neither the secret nor its key bytes, only sealed bytes with fresh IVs', async (t) => {
      const { secrets, newKey, rawSecretRows } = await open(t);
      const keyId = await newKey();
      const shown = [(await secrets.create(keyId, T0)).secret, (await secrets.rotate(keyId, T0 + HOUR)).secret];
      const stored = await rawSecretRows(keyId);
      t.equal(stored.length, 2);
      const bytes = (value: unknown) => value as Buffer;
      t.equal(bytes(stored[0].iv).length, 12);
      t.equal(bytes(stored[0].auth_tag).length, 16);
      t.equal(bytes(stored[0].ciphertext).length, 32, 'the 32-byte key, encrypted (GCM adds no padding)');
      t.not(bytes(stored[0].iv).toString('hex'), bytes(stored[1].iv).toString('hex'), 'a fresh IV per seal');
      for (const secret of shown) {
        const key = signingKeyOf(secret);
        for (const [index, row] of stored.entries()) {
          for (const [column, value] of Object.entries(row)) {
            const held = Buffer.isBuffer(value) ? value : Buffer.from(String(value));
            const where = `row ${index + 1}, ${column}`;
            t.notOk(held.includes(key), `${where}: not the raw key bytes`);
            t.notOk(held.includes(key.toString('base64')), `${where}: not its base64`);
            t.notOk(held.includes(key.toString('base64url')), `${where}: not its base64url`);
            t.notOk(held.includes(key.toString('hex')), `${where}: not its hex`);
          }
        }
      }
      t.notOk(JSON.stringify(await secrets.list(keyId, T0 + HOUR)).includes(shown[1].slice(6, 20)), 'the listing has no secret material');
    });

    t.test('another master key cannot open the secrets, with a clear error', async (t) => {
      const { secrets, newKey, withMasterKey } = await open(t);
      const keyId = await newKey();
      await secrets.create(keyId, T0);
      const wrong = withMasterKey(randomBytes(32));
      await refusesWith(
        t,
        () => wrong.signingKey(keyId, 1, T0),
        new RegExp(`${keyId}:1 cannot be decrypted: the master key does not match`),
        'a different master key',
      );
      t.equal(await wrong.activeVersion(keyId, T0), 1, 'what needs no decryption still works');
      const short = withMasterKey(randomBytes(16));
      const fresh = await newKey();
      await refusesWith(t, () => short.create(fresh, T0), /must be 32 bytes/, 'a master key of the wrong size');
      t.equal(await secrets.activeVersion(fresh, T0), null, 'and nothing was stored by the refused create');
    });

    t.test('a sealed secret opens only in its own row', async (t) => {
      const { secrets, newKey, copySealed } = await open(t);
      const keyId = await newKey();
      const other = await newKey();
      await secrets.create(keyId, T0);
      await secrets.rotate(keyId, T0 + HOUR);
      await secrets.create(other, T0);
      // Version 2's sealed bytes moved into version 1's row of the same key.
      await copySealed({ keyId, version: 2 }, { keyId, version: 1 });
      await refusesWith(t, () => secrets.signingKey(keyId, 1, T0 + HOUR), new RegExp(`${keyId}:1 cannot be decrypted`), 'another version of the same key');
      // Another key's version 1 copied into this key's version 1: same version number, different key.
      await copySealed({ keyId: other, version: 1 }, { keyId, version: 1 });
      await refusesWith(t, () => secrets.signingKey(keyId, 1, T0 + HOUR), /cannot be decrypted/, 'the same version of another key');
      t.ok(await secrets.signingKey(keyId, 2, T0 + HOUR), 'the untouched rows still open');
      t.ok(await secrets.signingKey(other, 1, T0 + HOUR));
    });

    t.test('unknown, malformed and revoked keys are refused', async (t) => {
      const { keys, secrets, newKey } = await open(t);
      for (const call of [
        () => secrets.create('key_ZZZZZZZZZZZZ', T0),
        () => secrets.rotate('key_ZZZZZZZZZZZZ', T0),
        () => secrets.list('key_ZZZZZZZZZZZZ', T0),
      ]) {
        await refusesWith(t, call, /^no API key with id 'key_ZZZZZZZZZZZZ'$/, 'an unknown key');
      }
      // An operator who pastes the API key itself must not see it echoed.
      const pasted = (await keys.create()).key;
      for (const call of [() => secrets.create(pasted, T0), () => secrets.rotate(pasted, T0), () => secrets.list(pasted, T0)]) {
        const error = (await failureOf(call)) as Error;
        t.ok(error instanceof WebhookSecretError);
        t.match(error.message, /no API key with id like that/);
        t.notOk(error.message.includes(pasted), 'not echoed');
      }

      const revoked = await newKey();
      await secrets.create(revoked, T0);
      await keys.revoke(revoked);
      await refusesWith(t, () => secrets.rotate(revoked, T0 + HOUR), /is revoked/, 'rotating for a revoked key');
      const fresh = await newKey();
      await keys.revoke(fresh);
      await refusesWith(t, () => secrets.create(fresh, T0), /is revoked/, 'creating for a revoked key');
      const rotating = await newKey();
      await keys.rotate(rotating, new Date(T0 + HOUR), new Date(T0));
      t.equal((await secrets.create(rotating, T0)).version, 1, 'a rotated key takes a secret during its overlap');
      await refusesWith(t, () => secrets.rotate(rotating, T0 + HOUR), /is revoked/, 'not once its overlap ended, before any sweep');
      t.equal((await secrets.list(revoked, T0)).length, 1, 'a revoked key can still be inspected');
      // Events accepted before the revocation stay deliverable under their pinned version.
      t.ok(await secrets.signingKey(revoked, 1, T0 + HOUR));
      t.equal(await secrets.activeVersion(revoked, T0 + HOUR), 1);
      t.equal(await secrets.activeVersion('key_ZZZZZZZZZZZZ', T0), null);
      t.equal(await secrets.signingKey('key_ZZZZZZZZZZZZ', 1, T0), null);
    });

    t.test('concurrent admin commands on one key: one create wins; rotations take distinct versions', async (t) => {
      const { secrets, newKey, another } = await open(t);
      const stores = [secrets, await another(), secrets, await another()];
      const keyId = await newKey();
      const creates = await Promise.allSettled(stores.map((s) => s.create(keyId, T0)));
      t.equal(creates.filter((r) => r.status === 'fulfilled').length, 1, 'one create succeeds');
      for (const r of creates) if (r.status === 'rejected') t.match(r.reason, { name: 'WebhookSecretError', message: /already has an active/ });
      const rotations = await Promise.all(stores.map((s, i) => s.rotate(keyId, T0 + (i + 1) * 1000)));
      t.same(rotations.map((r) => r.version).sort(), [2, 3, 4, 5], 'each rotation its own version');
      const listed = await secrets.list(keyId, T0 + HOUR);
      t.same(
        listed.map((s) => s.state),
        ['previous', 'previous', 'previous', 'previous', 'active'],
        'exactly one active',
      );
      t.equal(await secrets.activeVersion(keyId, T0 + HOUR), 5);
      for (const r of rotations)
        t.same(await secrets.signingKey(keyId, r.version, T0 + HOUR), signingKeyOf(r.secret), `version ${r.version} opens to what was shown`);
    });
  });
}
