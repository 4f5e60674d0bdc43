// The KeyStore contract, run against every implementation (test/store/key-store.test.ts): key
// format, authentication, hashing at rest, validation, updates, revocation, rotation (a revocation
// scheduled at the overlap's end, judged by the store's clock), a key's last use (written at most once
// a minute between processes, never backwards, never for a refused key), dictionaries, and the first
// key of a fresh install. Each case gets a fresh, empty store from the implementation's harness.
import { createHash } from 'node:crypto';

import type { Test } from 'tap';

import { type ApiKeyRecord, DEFAULT_ENTITLEMENTS } from '../../../src/domain/api-keys.js';
import type { BillingSettingsStore } from '../../../src/store/billing-settings-store.js';
import { type CreateKeyOptions, type KeyStore } from '../../../src/store/key-store.js';
import { KeyStoreError } from '../../../src/store/key-store-error.js';
import type { UsageLedger } from '../../../src/store/usage-ledger.js';
import { NO_SAFETY_EVENTS } from '../../../src/store/usage-record.js';
import { failureOf, refuses } from './refusal.js';

/** The stores also take the clock as a last argument (both implementations do), so times are exact. */
export interface KeyStoreUnderTest extends KeyStore {
  create(options?: CreateKeyOptions, now?: Date): Promise<{ key: string; record: ApiKeyRecord }>;
  revoke(id: string, now?: Date): Promise<boolean>;
  rotate(id: string, revokeAt: Date, now?: Date): Promise<import('../../../src/store/key-store.js').RotatedKey>;
  createForTenant(tenant: string, now?: Date): Promise<{ key: string; record: ApiKeyRecord }>;
  recordUse(id: string, now?: Date): Promise<boolean>;
}

export interface KeyStoreHarness {
  store: KeyStoreUnderTest;
  /** Another store on the same database through its own connection(s), as another process would have. */
  another(): Promise<KeyStoreUnderTest>;
  /** The `api_keys` row as stored (column name -> value), to check what is at rest. */
  rawKeyRow(id: string): Promise<Record<string, unknown>>;
  /** The stores' clock (epoch ms; null: the real time), which judges scheduled revocations. */
  clock: { nowMs: number | null };
  /** The billing settings and the usage ledger on the same database (a rotation moves the key's billing). */
  billing: BillingSettingsStore;
  ledger: UsageLedger;
  /** Closes the store(s) and the database; the contract calls it at the end of each case. */
  close(): Promise<void>;
}

export type MakeKeyStore = (t: Test) => Promise<KeyStoreHarness>;

const KEY_FORMAT = /^svc_([0-9A-Za-z]{12})_([A-Za-z0-9_-]{43})$/;
const secretOf = (key: string) => KEY_FORMAT.exec(key)![2];

export function keyStoreContract(t: Test, name: string, make: MakeKeyStore): void {
  const open = async (t: Test): Promise<KeyStoreHarness> => {
    const harness = await make(t);
    t.teardown(() => harness.close());
    return harness;
  };
  const rejects = (t: Test, call: () => Promise<unknown>, code: 'invalid_argument' | 'not_found', message: RegExp) =>
    refuses(t, call, KeyStoreError, { code, message }, `${code} ${message}`);

  t.test(`${name}: KeyStore contract`, async (t) => {
    t.test('create: key format, public id and defaults', async (t) => {
      const { store } = await open(t);
      const now = new Date('2030-01-02T03:04:05.000Z');
      const { key, record } = await store.create({}, now);
      const match = KEY_FORMAT.exec(key);
      t.ok(match, 'svc_<12 base62>_<43 base64url>');
      t.equal(record.id, `key_${match![1]}`, 'the public id is the id inside the key');
      t.match(record.tenant, /^ten_[0-9A-Za-z]+$/);
      t.equal(record.plan, 'payg');
      t.same(record.entitlements, DEFAULT_ENTITLEMENTS);
      t.equal(record.retentionHours, 24);
      t.equal(record.billingState, 'active');
      t.equal(record.defaultLanguage, null);
      t.equal(record.smartFormatDefault, false, 'no formatting unless asked');
      t.equal(record.redactAlways, null, 'no standing redaction');
      t.equal(record.rateLimitPerMinute, null);
      t.equal(record.createdAt, now.toISOString());
      t.equal(record.revokedAt, null);
      t.same(await store.get(record.id), record, 'what create returns is what is stored');
      const other = await store.create();
      t.not(other.key, key);
      t.not(other.record.tenant, record.tenant, 'each key gets its own tenant unless told');
      t.equal(await store.count(), 2);
    });

    t.test('create with options; keys can share a tenant', async (t) => {
      const { store } = await open(t);
      const a = await store.create({
        tenant: 'acme',
        plan: 'enterprise',
        entitlements: ['patterns', 'language_detection'],
        defaultLanguage: 'EN-gb',
        retentionHours: 72,
        rateLimitPerMinute: 120,
      });
      const b = await store.create({ tenant: 'acme', entitlements: [] });
      t.equal(a.record.tenant, 'acme');
      t.equal(b.record.tenant, 'acme');
      t.equal(a.record.plan, 'enterprise');
      t.same(a.record.entitlements, ['patterns', 'language_detection']);
      t.equal(a.record.defaultLanguage, 'en-GB', 'normalized');
      t.equal(a.record.retentionHours, 72);
      t.equal(a.record.rateLimitPerMinute, 120);
      t.same(b.record.entitlements, []);
      t.equal((await store.create({ defaultLanguage: 'es-419' })).record.defaultLanguage, 'es-419');
      t.same(await store.get(a.record.id), a.record, 'stored as returned');
      const clinic = await store.create({ smartFormatDefault: true, redactAlways: ['identifiers', 'medical_record_number', 'identifiers'] });
      t.match(clinic.record, { smartFormatDefault: true, redactAlways: ['identifiers', 'medical_record_number'] }, 'policies once each, in order');
      t.same(await store.get(clinic.record.id), clinic.record);
      const cleared = await store.update(clinic.record.id, { smartFormatDefault: false, redactAlways: null });
      t.match(cleared, { smartFormatDefault: false, redactAlways: null });
      const rotated = await store.rotate(clinic.record.id, new Date(Date.now() + 60_000));
      t.match(rotated.record, { smartFormatDefault: false, redactAlways: null }, 'a successor keeps the standing choices');
      const standing = await store.update(rotated.record.id, { redactAlways: ['health'] });
      t.same((await store.rotate(standing.id, new Date(Date.now() + 60_000))).record.redactAlways, ['health']);
    });

    t.test('authenticate: the right key only', async (t) => {
      const { store } = await open(t);
      const { key, record } = await store.create();
      const other = await store.create();
      t.equal((await store.authenticate(key))?.id, record.id, 'right key');
      t.same(await store.authenticate(key), record, 'the whole record');
      t.equal((await store.authenticate(other.key))?.id, other.record.id);
      const secret = secretOf(key);
      const flipped = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
      t.equal(await store.authenticate(key.replace(secret, flipped)), null, 'wrong secret');
      t.equal(await store.authenticate(key.replace(secret, secretOf(other.key))), null, "another key's secret");
      t.equal(await store.authenticate(`svc_ZZZZZZZZZZZZ_${secret}`), null, 'unknown id');
      for (const malformed of ['', 'svc_', `${key}x`, key.slice(0, -1), key.toUpperCase(), ` ${key}`, `Bearer ${key}`, record.id, key.replace('svc_', 'sk_')]) {
        t.equal(await store.authenticate(malformed), null, `malformed ${JSON.stringify(malformed.slice(0, 20))}`);
      }
      t.equal(await store.authenticate(undefined as unknown as string), null, 'not a string');
    });

    t.test('authenticate: revoked keys are refused; paused billing still authenticates', async (t) => {
      const { store } = await open(t);
      const { key, record } = await store.create();
      await store.update(record.id, { billingState: 'paused' });
      t.equal((await store.authenticate(key))?.billingState, 'paused', 'the API decides what a paused key may do');
      const revokedAt = new Date('2030-05-06T07:08:09.000Z');
      t.equal(await store.revoke(record.id, revokedAt), true);
      t.equal(await store.authenticate(key), null);
      t.equal(await store.revoke(record.id), false, 'already revoked');
      t.equal((await store.get(record.id))?.revokedAt, revokedAt.toISOString(), 'the first revocation time stays');
      await rejects(t, () => store.revoke('key_ZZZZZZZZZZZZ'), 'not_found', /key_ZZZZZZZZZZZZ/);
      await rejects(t, () => store.revoke('not-an-id'), 'not_found', /no API key with id like that/);
    });

    t.test("rotate: a new key with the key's terms; the old one usable until its revoke_at, then refused as revoked; due, then revoked for good", async (t) => {
      const { store, another, clock } = await open(t);
      const T0 = Date.parse('2030-03-04T10:00:00.000Z');
      const HOUR = 3_600_000;
      clock.nowMs = T0;
      const old = await store.create({
        tenant: 'acme',
        plan: 'enterprise',
        entitlements: ['patterns'],
        defaultLanguage: 'es',
        retentionHours: 5,
        rateLimitPerMinute: 30,
      });
      await store.setDictionary(old.record.id, 'en', ['metoprolol', 'apixaban']);
      const rotated = await store.rotate(old.record.id, new Date(T0 + HOUR), new Date(T0));
      t.match(rotated.record, { tenant: 'acme', plan: 'enterprise', entitlements: ['patterns'], defaultLanguage: 'es', retentionHours: 5 });
      t.match(rotated.record, { rateLimitPerMinute: 30, billingState: 'active', revokedAt: null, revokeAt: null, createdAt: new Date(T0).toISOString() });
      t.not(rotated.record.id, old.record.id);
      t.match(rotated.key, KEY_FORMAT, 'the new secret, returned once');
      t.same((await store.authenticate(rotated.key))?.id, rotated.record.id, 'the new key works at once');
      t.same(await store.getDictionary(rotated.record.id, 'en'), ['metoprolol', 'apixaban'], 'with the dictionaries');
      t.match(rotated.rotated, { id: old.record.id, revokedAt: null, revokeAt: new Date(T0 + HOUR).toISOString() });

      clock.nowMs = T0 + HOUR - 1;
      t.equal((await store.authenticate(old.key))?.id, old.record.id, 'the old key works through the overlap');
      t.same(await store.dueRevocations(), []);
      await rejects(t, () => store.rotate(old.record.id, new Date(T0 + 2 * HOUR)), 'invalid_argument', /is being rotated already/);

      clock.nowMs = T0 + HOUR;
      t.equal(await store.authenticate(old.key), null, 'refused from revoke_at on, as a revoked key');
      t.equal((await store.get(old.record.id))?.revokedAt, new Date(T0 + HOUR).toISOString(), 'read as revoked, at its revoke_at');
      t.equal((await store.list('acme')).find((k) => k.id === old.record.id)?.revokedAt, new Date(T0 + HOUR).toISOString());
      t.same(await store.dueRevocations(), [old.record.id], 'due: the sweeper carries it out');
      await rejects(t, () => store.rotate(old.record.id, new Date(T0 + 2 * HOUR)), 'not_found', /no API key/);

      t.equal(await store.revoke(old.record.id, new Date(T0 + HOUR + 30_000)), true, 'revoked for good');
      t.equal(await (await another()).revoke(old.record.id), false, 'once: another process finds it revoked');
      t.equal((await store.get(old.record.id))?.revokedAt, new Date(T0 + HOUR).toISOString(), 'dated when it stopped working');
      t.same(await store.dueRevocations(), []);
      clock.nowMs = null;
      t.equal(await store.authenticate(old.key), null);
      await rejects(t, () => store.rotate('key_ZZZZZZZZZZZZ', new Date()), 'not_found', /key_ZZZZZZZZZZZZ/);
    });

    t.test("rotate: a paused key's successor is paused; its billing overrides go along, and the prepaid credit it has left moves", async (t) => {
      const { store, billing, ledger } = await open(t);
      const old = await store.create({ tenant: 'acme' });
      await store.update(old.record.id, { billingState: 'paused' });
      await billing.updateKey(old.record.id, { overrides: { spendCapMicros: 5_000_000 }, addCreditMicros: 2_000_000 });
      const event = {
        eventKey: 'job:rotation',
        tenant: 'acme',
        keyId: old.record.id,
        period: '2030-03',
        atMs: Date.parse('2030-03-04T09:00:00.000Z'),
        route: 'job' as const,
        model: 'base',
        languageFamily: 'en',
        diarization: false,
        vocabulary: false,
        patterns: false,
        audioMs: 3_600_000,
        safety: NO_SAFETY_EVENTS,
      };
      t.equal(await ledger.record(event, { includedMs: 0, priceMicrosPerHour: 500_000 }), true, 'the old key was charged 0.50');
      const rotated = await store.rotate(old.record.id, new Date(Date.now() + 60_000));
      t.equal(rotated.record.billingState, 'paused', 'no way around an operator’s pause');
      t.same(
        await billing.keyBilling(rotated.record.id),
        { overrides: { spendCapMicros: 5_000_000 }, creditGrantedMicros: 1_500_000 },
        'the credit left moves',
      );
      t.same(
        await billing.keyBilling(old.record.id),
        { overrides: { spendCapMicros: 5_000_000 }, creditGrantedMicros: 500_000 },
        'the old key keeps what it spent: none left',
      );
      const plain = await store.create({ tenant: 'acme' });
      const successor = await store.rotate(plain.record.id, new Date(Date.now() + 60_000));
      t.same(await billing.keyBilling(successor.record.id), { overrides: {}, creditGrantedMicros: null }, 'no billing of its own: none made');
    });

    t.test("createForTenant: the operator's terms of the tenant's oldest usable key, billing included; credit is never copied", async (t) => {
      const { store, billing } = await open(t);
      const fresh = await store.createForTenant('clinic-new');
      t.match(fresh.record, { tenant: 'clinic-new', plan: 'payg', entitlements: [...DEFAULT_ENTITLEMENTS], billingState: 'active', rateLimitPerMinute: null });
      t.match(fresh.key, KEY_FORMAT, 'a tenant that never had a key gets the defaults');
      t.same(await billing.keyBilling(fresh.record.id), { overrides: {}, creditGrantedMicros: null });

      // A second apart: which key is the oldest or the latest goes by creation time (ties by random id).
      const at = (seconds: number) => new Date(Date.parse('2031-01-01T00:00:00.000Z') + seconds * 1000);
      const model = await store.create(
        { tenant: 'clinic-held', plan: 'builder', entitlements: [], defaultLanguage: 'de', retentionHours: 2, rateLimitPerMinute: 7 },
        at(0),
      );
      await store.update(model.record.id, { billingState: 'paused' });
      await billing.updateKey(model.record.id, { overrides: { batchIncludedMs: 3_600, spendCapMicros: 1_000 }, addCreditMicros: 9_000_000 });
      const younger = await store.create({ tenant: 'clinic-held', plan: 'enterprise', entitlements: ['patterns', 'language_detection'] }, at(1));
      const sibling = await store.createForTenant('clinic-held', at(2));
      t.match(
        sibling.record,
        { tenant: 'clinic-held', plan: 'builder', entitlements: [], defaultLanguage: 'de', retentionHours: 2, rateLimitPerMinute: 7, billingState: 'paused' },
        'the oldest usable key is the model, pause and all',
      );
      t.same(
        await billing.keyBilling(sibling.record.id),
        { overrides: { batchIncludedMs: 3_600, spendCapMicros: 1_000 }, creditGrantedMicros: 0 },
        'its overrides go along; its credit starts at none',
      );
      t.same((await billing.keyBilling(model.record.id)).creditGrantedMicros, 9_000_000, 'the model keeps its credit');

      await store.revoke(model.record.id);
      await store.revoke(younger.record.id);
      await store.revoke(sibling.record.id);
      const afterRevoking = await store.createForTenant('clinic-held', at(3));
      t.match(
        afterRevoking.record,
        { plan: 'builder', entitlements: [], billingState: 'paused' },
        'revoking every key sheds no term: the latest revoked one is the model',
      );
      t.same((await billing.keyBilling(afterRevoking.record.id)).overrides, { batchIncludedMs: 3_600, spendCapMicros: 1_000 });
      await rejects(t, () => store.createForTenant(''), 'invalid_argument', /tenant/);
    });

    t.test("recordUse: a key's last use, on the store's clock, at most once a minute between processes, never moved backwards", async (t) => {
      const { store, another, clock } = await open(t);
      const T0 = Date.parse('2030-04-05T06:07:08.000Z');
      const at = (ms: number) => new Date(ms).toISOString();
      const lastUsed = async (id: string) => (await store.get(id))?.lastUsedAt;
      clock.nowMs = T0;
      const { key, record } = await store.create({ tenant: 'acme' }, new Date(T0));
      t.equal(record.lastUsedAt, null, 'a new key was never used');
      t.equal(await store.recordUse(record.id), true, 'the first use is written');
      t.equal(await lastUsed(record.id), at(T0), "at the store's clock");
      t.equal((await store.authenticate(key))?.lastUsedAt, at(T0), 'authentication reads it');
      t.equal((await store.list('acme'))[0].lastUsedAt, at(T0), 'and so does the listing');

      const other = await another();
      clock.nowMs = T0 + 60_000;
      t.equal(await other.recordUse(record.id), false, 'within the minute: not written, by another process either');
      t.equal(await store.recordUse(record.id), false);
      t.equal(await lastUsed(record.id), at(T0));
      clock.nowMs = T0 + 60_001;
      t.equal(await other.recordUse(record.id), true, 'past the minute: written by whichever process comes first');
      t.equal(await store.recordUse(record.id), false, 'once');
      t.equal(await lastUsed(record.id), at(T0 + 60_001));
      t.equal(await store.recordUse(record.id, new Date(T0 - 3_600_000)), false, 'an earlier use never replaces a later one');
      t.equal(await lastUsed(record.id), at(T0 + 60_001), 'not moved backwards');

      clock.nowMs = T0 + 600_000;
      const racers = [store, other, await another()];
      const written = await Promise.all(racers.flatMap((s) => [s.recordUse(record.id), s.recordUse(record.id)]));
      t.equal(written.filter(Boolean).length, 1, 'of several processes using the key at once, one writes');
      t.equal(await lastUsed(record.id), at(T0 + 600_000));
    });

    t.test('recordUse: nothing for a revoked key, a key past its scheduled revocation, or an unknown id; a successor starts unused', async (t) => {
      const { store, clock } = await open(t);
      const T0 = Date.parse('2030-04-05T06:07:08.000Z');
      clock.nowMs = T0;
      const revoked = await store.create({}, new Date(T0));
      await store.revoke(revoked.record.id, new Date(T0));
      t.equal(await store.recordUse(revoked.record.id), false, 'revoked');
      t.equal((await store.get(revoked.record.id))?.lastUsedAt, null);

      const rotated = await store.create({}, new Date(T0));
      t.equal(await store.recordUse(rotated.record.id), true);
      const successor = await store.rotate(rotated.record.id, new Date(T0 + 3_600_000), new Date(T0));
      t.equal(successor.record.lastUsedAt, null, 'the new key of a rotation was never used');
      t.equal(successor.rotated.lastUsedAt, new Date(T0).toISOString(), 'the old one keeps its last use');
      clock.nowMs = T0 + 3_600_000;
      t.equal(await store.recordUse(rotated.record.id), false, 'past its revoke_at: refused, so not used');
      t.equal((await store.get(rotated.record.id))?.lastUsedAt, new Date(T0).toISOString());
      t.equal(await store.recordUse(successor.record.id), true, 'the successor is');

      t.equal(await store.recordUse('key_ZZZZZZZZZZZZ'), false, 'unknown id');
      t.equal(await store.recordUse(rotated.key), false, 'a secret key is not an id');
    });

    t.test('only a SHA-256 of the secret is stored; listings carry neither', async (t) => {
      const { store, rawKeyRow } = await open(t);
      const { key, record } = await store.create();
      const secret = secretOf(key);
      const hash = createHash('sha256').update(secret).digest();
      const row = await rawKeyRow(record.id);
      t.same(row.secret_sha256, hash);
      for (const [column, value] of Object.entries(row)) {
        if (typeof value === 'string') t.notOk(value.includes(secret), `column ${column} does not hold the secret`);
        if (Buffer.isBuffer(value) && column !== 'secret_sha256') t.notOk(value.includes(Buffer.from(secret)), `column ${column} does not hold the secret`);
      }
      const listed = JSON.stringify([await store.list(), await store.get(record.id)]);
      t.notOk(listed.includes(secret));
      t.notOk(listed.includes(hash.toString('hex')));
      t.notOk(listed.includes(hash.toString('base64')));
      t.notOk(listed.includes('secret'), 'no secret field at all');
    });

    t.test('validation: clear invalid_argument errors, nothing stored', async (t) => {
      const { store } = await open(t);
      for (const retentionHours of [0, 73, 1.5, -1, Number.NaN]) {
        await rejects(t, () => store.create({ retentionHours }), 'invalid_argument', /retention hours must be an integer from 1 to 72/);
      }
      await rejects(t, () => store.create({ plan: 'gold' as never }), 'invalid_argument', /plan must be one of builder, payg, enterprise/);
      await rejects(t, () => store.create({ entitlements: ['telepathy' as never] }), 'invalid_argument', /unknown entitlement 'telepathy'/);
      for (const defaultLanguage of ['english', 'en_US', 'en-USA', 'xx', 'zh', '', 'auto']) {
        await rejects(t, () => store.create({ defaultLanguage }), 'invalid_argument', /default language/);
      }
      await rejects(t, () => store.create({ tenant: '' }), 'invalid_argument', /tenant/);
      await rejects(t, () => store.create({ tenant: 'a b' }), 'invalid_argument', /tenant/);
      await rejects(t, () => store.create({ rateLimitPerMinute: 0 }), 'invalid_argument', /rate limit/);
      await rejects(t, () => store.create({ redactAlways: ['identifiers', 'gossip'] }), 'invalid_argument', /redaction policies not known: gossip/);
      t.equal(await store.count(), 0);
    });

    t.test('update: patches the named fields, validates, not_found for unknown ids', async (t) => {
      const { store } = await open(t);
      const { record } = await store.create({ tenant: 'acme' });
      const updated = await store.update(record.id, {
        plan: 'builder',
        entitlements: ['patterns'],
        retentionHours: 12,
        defaultLanguage: 'fr',
        billingState: 'paused',
        rateLimitPerMinute: 30,
      });
      t.match(updated, {
        id: record.id,
        tenant: 'acme',
        plan: 'builder',
        entitlements: ['patterns'],
        retentionHours: 12,
        defaultLanguage: 'fr',
        billingState: 'paused',
        rateLimitPerMinute: 30,
      });
      t.same(await store.get(record.id), updated, 'stored as returned');
      t.same(await store.update(record.id, { defaultLanguage: null, rateLimitPerMinute: null }), {
        ...updated,
        defaultLanguage: null,
        rateLimitPerMinute: null,
      });
      t.same(await store.update(record.id, {}), await store.get(record.id), 'an empty patch changes nothing');
      await rejects(t, () => store.update(record.id, { retentionHours: 100 }), 'invalid_argument', /retention/);
      await rejects(t, () => store.update(record.id, { billingState: 'closed' as never }), 'invalid_argument', /billing state/);
      t.equal((await store.get(record.id))?.retentionHours, 12, 'a refused patch changes nothing');
      await rejects(t, () => store.update('key_ZZZZZZZZZZZZ', { plan: 'payg' }), 'not_found', /no API key/);
      await rejects(t, () => store.update('key_ZZZZZZZZZZZZ', {}), 'not_found', /no API key/);
      await rejects(t, () => store.update('key_ZZZZZZZZZZZZ', { retentionHours: 0 }), 'invalid_argument', /retention/);
      t.equal(await store.get('not-an-id'), null);
    });

    t.test('a pasted secret key is never echoed in a not_found message', async (t) => {
      const { store } = await open(t);
      const { key } = await store.create();
      for (const call of [() => store.update(key, { plan: 'payg' }), () => store.revoke(key), () => store.setDictionary(key, 'en', ['x'])]) {
        const error = (await failureOf(call)) as Error;
        t.match(error, { code: 'not_found' });
        t.notOk(error.message.includes(secretOf(key)));
      }
    });

    t.test('list: every key, oldest first, then by id in byte order', async (t) => {
      const { store } = await open(t);
      const a = await store.create({}, new Date('2030-01-01T00:00:00Z'));
      const b = await store.create({}, new Date('2030-01-02T00:00:00Z'));
      t.same(
        (await store.list()).map((r) => r.id),
        [a.record.id, b.record.id],
      );
      // Same instant: the id decides, compared byte by byte ('Z' < 'a'), whatever the database's collation.
      const same = new Date('2030-01-03T00:00:00Z');
      const ties: string[] = [];
      for (let i = 0; i < 12; i++) ties.push((await store.create({}, same)).record.id);
      const byteOrder = [...ties].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      t.same(
        (await store.list()).slice(2).map((r) => r.id),
        byteOrder,
      );
    });

    t.test("list(tenant): that tenant's keys only, in the same order", async (t) => {
      const { store } = await open(t);
      const a1 = await store.create({ tenant: 'clinic-a' }, new Date('2030-01-02T00:00:00Z'));
      const b1 = await store.create({ tenant: 'clinic-b' }, new Date('2030-01-01T00:00:00Z'));
      const a0 = await store.create({ tenant: 'clinic-a' }, new Date('2030-01-01T00:00:00Z'));
      t.same(
        (await store.list('clinic-a')).map((r) => r.id),
        [a0.record.id, a1.record.id],
      );
      t.same(
        (await store.list('clinic-b')).map((r) => r.id),
        [b1.record.id],
      );
      t.same(await store.list('clinic-c'), []);
      t.equal((await store.list()).length, 3);
    });

    t.test('dictionaries: per key and language family, trimmed, deduplicated, replaced', async (t) => {
      const { store } = await open(t);
      const { record } = await store.create();
      const other = (await store.create()).record;
      await store.setDictionary(record.id, 'en', ['  metoprolol ', 'Atorvastatin', 'metoprolol', 'METOPROLOL', 'troponin']);
      t.same(await store.getDictionary(record.id, 'en'), ['metoprolol', 'Atorvastatin', 'troponin']);
      t.same(await store.getDictionary(record.id, 'es'), [], 'another family');
      t.same(await store.getDictionary(other.id, 'en'), [], 'another key');
      t.same(await store.getDictionary('key_ZZZZZZZZZZZZ', 'en'), [], 'an unknown key has none');
      await store.setDictionary(record.id, 'en', ['aspirin']);
      t.same(await store.getDictionary(record.id, 'en'), ['aspirin'], 'replaces the list');
      await store.setDictionary(record.id, 'en', []);
      t.same(await store.getDictionary(record.id, 'en'), []);

      const maxTerm = 'x'.repeat(96);
      await store.setDictionary(record.id, 'de', [maxTerm, 'é'.repeat(96)]);
      t.same(await store.getDictionary(record.id, 'de'), [maxTerm, 'é'.repeat(96)]);
      const thousand = Array.from({ length: 1000 }, (_, i) => `term ${i}`);
      await store.setDictionary(record.id, 'fr', [...thousand, 'TERM 1']);
      t.equal((await store.getDictionary(record.id, 'fr')).length, 1000, '1,000 distinct terms (duplicates do not count)');

      await rejects(t, () => store.setDictionary(record.id, 'en', [...thousand, 'one more']), 'invalid_argument', /at most 1000 terms/);
      await rejects(t, () => store.setDictionary(record.id, 'en', ['x'.repeat(97)]), 'invalid_argument', /term 1 is longer than 96/);
      await rejects(t, () => store.setDictionary(record.id, 'en', ['ok', '   ']), 'invalid_argument', /term 2 is empty/);
      await rejects(t, () => store.setDictionary(record.id, 'en', ['tab\there']), 'invalid_argument', /control character/);
      for (const bidi of ['\u202e', '\u2067', '\u200e', '\u061c']) {
        await rejects(t, () => store.setDictionary(record.id, 'en', ['ok', `dose${bidi}50`]), 'invalid_argument', /term 2 contains a control or bidirectional/);
      }
      await rejects(t, () => store.setDictionary(record.id, 'en-GB', ['x']), 'invalid_argument', /language family/);
      await rejects(t, () => store.setDictionary(record.id, 'xx', ['x']), 'invalid_argument', /language family/);
      await rejects(t, () => store.setDictionary('key_ZZZZZZZZZZZZ', 'en', ['x']), 'not_found', /no API key/);
      await rejects(t, () => store.setDictionary('key_ZZZZZZZZZZZZ', 'xx', ['x']), 'invalid_argument', /language family/);
      t.same(await store.getDictionary(record.id, 'en'), [], 'refused lists change nothing');
      t.same(await store.getDictionary('key_ZZZZZZZZZZZZ', 'en'), [], 'nothing stored for an unknown key');
    });

    t.test('createFirstKey: only into an empty store, only once handed over', async (t) => {
      const { store } = await open(t);
      const handed: string[] = [];
      await refuses(
        t,
        () =>
          store.createFirstKey(() => {
            throw new Error('disk full');
          }),
        Error,
        { message: 'disk full' },
        'the hand-over failure is the error',
      );
      t.equal(await store.count(), 0, 'a key nobody received is not kept');

      const first = await store.createFirstKey((key) => handed.push(key), { tenant: 'clinic', plan: 'builder' });
      t.ok(first && KEY_FORMAT.test(first), 'a key');
      t.same(handed, [first], 'handed over exactly what is returned');
      t.match(await store.authenticate(first!), { tenant: 'clinic', plan: 'builder' }, 'it works, with the options given');
      t.equal(await store.createFirstKey((key) => handed.push(key)), null, 'not when a key exists');
      t.equal(handed.length, 1, 'and nothing handed over');
      t.equal(await store.count(), 1);

      const { store: other } = await open(t);
      await other.create();
      t.equal(await other.createFirstKey(() => t.fail('not called')), null, 'any key counts, not only a first one');
      t.equal(await other.createFirstKey(() => t.fail('not called'), { plan: 'gold' as never }), null, 'options are not even read then');
    });

    t.test('createFirstKey: of several processes starting at once, one creates it', async (t) => {
      const { store, another } = await open(t);
      const stores = [store, await another(), await another()];
      const handed: string[] = [];
      const results = await Promise.all(stores.flatMap((s) => [s.createFirstKey((key) => handed.push(key)), s.createFirstKey((key) => handed.push(key))]));
      const created = results.filter((result) => result !== null);
      t.equal(created.length, 1, 'exactly one key');
      t.same(handed, created);
      t.equal(await store.count(), 1);
    });
  });
}
