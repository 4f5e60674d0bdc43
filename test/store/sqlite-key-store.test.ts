// SqliteKeyStore on a real database file: key format, authentication, hashing at rest, validation,
// updates, revocation and dictionaries.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { KeyStoreError } from '../../src/store/key-store-error.js';
import { DEFAULT_ENTITLEMENTS } from '../../src/store/key-store.js';
import { openDatabase, type Database } from '../../src/store/sqlite/database.js';
import { SqliteKeyStore } from '../../src/store/sqlite/sqlite-key-store.js';

function openStore(t: Test): { store: SqliteKeyStore; db: Database; dir: string } {
  const dir = t.testdir();
  const db = openDatabase(join(dir, 'svc-stt.db'));
  t.teardown(() => db.close());
  return { store: new SqliteKeyStore(db), db, dir };
}

const KEY_FORMAT = /^svc_([0-9A-Za-z]{12})_([A-Za-z0-9_-]{43})$/;
const secretOf = (key: string) => KEY_FORMAT.exec(key)![2];

function rejects(t: Test, run: () => unknown, code: 'invalid_argument' | 'not_found', pattern: RegExp): void {
  const error = thrown(run);
  t.ok(error instanceof KeyStoreError, `throws a KeyStoreError (${pattern})`);
  t.match(error, { code, message: pattern });
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

t.test('create: key format, public id and defaults', async (t) => {
  const { store } = openStore(t);
  const now = new Date('2030-01-02T03:04:05.000Z');
  const { key, record } = store.create({}, now);
  const match = KEY_FORMAT.exec(key);
  t.ok(match, 'svc_<12 base62>_<43 base64url>');
  t.equal(record.id, `key_${match![1]}`, 'the public id is the id inside the key');
  t.match(record.tenant, /^ten_[0-9A-Za-z]+$/);
  t.equal(record.plan, 'payg');
  t.same(record.entitlements, DEFAULT_ENTITLEMENTS);
  t.equal(record.retentionHours, 24);
  t.equal(record.billingState, 'active');
  t.equal(record.defaultLanguage, null);
  t.equal(record.rateLimitPerMinute, null);
  t.equal(record.createdAt, now.toISOString());
  t.equal(record.revokedAt, null);
  const other = store.create();
  t.not(other.key, key);
  t.not(other.record.tenant, record.tenant, 'each key gets its own tenant unless told');
  t.equal(store.count(), 2);
});

t.test('create with options; keys can share a tenant', async (t) => {
  const { store } = openStore(t);
  const a = store.create({ tenant: 'acme', plan: 'enterprise', entitlements: ['patterns', 'language_detection'], defaultLanguage: 'EN-gb', retentionHours: 72, rateLimitPerMinute: 120 });
  const b = store.create({ tenant: 'acme', entitlements: [] });
  t.equal(a.record.tenant, 'acme');
  t.equal(b.record.tenant, 'acme');
  t.equal(a.record.plan, 'enterprise');
  t.same(a.record.entitlements, ['patterns', 'language_detection']);
  t.equal(a.record.defaultLanguage, 'en-GB', 'normalized');
  t.equal(a.record.retentionHours, 72);
  t.equal(a.record.rateLimitPerMinute, 120);
  t.same(b.record.entitlements, []);
  t.equal(store.create({ defaultLanguage: 'es-419' }).record.defaultLanguage, 'es-419');
});

t.test('authenticate: the right key only', async (t) => {
  const { store } = openStore(t);
  const { key, record } = store.create();
  const other = store.create();
  t.equal(store.authenticate(key)?.id, record.id, 'right key');
  t.equal(store.authenticate(other.key)?.id, other.record.id);
  const secret = secretOf(key);
  const flipped = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
  t.equal(store.authenticate(key.replace(secret, flipped)), null, 'wrong secret');
  t.equal(store.authenticate(key.replace(secret, secretOf(other.key))), null, "another key's secret");
  t.equal(store.authenticate(`svc_ZZZZZZZZZZZZ_${secret}`), null, 'unknown id');
  for (const malformed of ['', 'svc_', `${key}x`, key.slice(0, -1), key.toUpperCase(), ` ${key}`, `Bearer ${key}`, record.id, key.replace('svc_', 'sk_')]) {
    t.equal(store.authenticate(malformed), null, `malformed ${JSON.stringify(malformed.slice(0, 20))}`);
  }
  t.equal(store.authenticate(undefined as unknown as string), null, 'not a string');
});

t.test('authenticate: revoked keys are refused; paused billing still authenticates', async (t) => {
  const { store } = openStore(t);
  const { key, record } = store.create();
  store.update(record.id, { billingState: 'paused' });
  t.equal(store.authenticate(key)?.billingState, 'paused', 'the API decides what a paused key may do');
  t.equal(store.revoke(record.id), true);
  t.equal(store.authenticate(key), null);
  t.equal(store.revoke(record.id), false, 'already revoked');
  t.ok(store.get(record.id)?.revokedAt);
  rejects(t, () => store.revoke('key_ZZZZZZZZZZZZ'), 'not_found', /key_ZZZZZZZZZZZZ/);
});

t.test('only a SHA-256 of the secret is stored; listings carry neither', async (t) => {
  const { store, db, dir } = openStore(t);
  const { key, record } = store.create();
  const secret = secretOf(key);
  const hash = createHash('sha256').update(secret).digest();
  const row = db.prepare('SELECT * FROM api_keys WHERE id = ?').get(record.id) as Record<string, unknown>;
  t.same(row.secret_sha256, hash);
  for (const [column, value] of Object.entries(row)) {
    if (typeof value === 'string') t.notOk(value.includes(secret), `column ${column} does not hold the secret`);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  for (const name of readdirSync(dir)) {
    t.notOk(readFileSync(join(dir, name)).includes(secret), `${name} does not contain the secret`);
  }
  const listed = JSON.stringify([store.list(), store.get(record.id)]);
  t.notOk(listed.includes(secret));
  t.notOk(listed.includes(hash.toString('hex')));
  t.notOk(listed.includes(hash.toString('base64')));
  t.notOk(listed.includes('secret'), 'no secret field at all');
});

t.test('validation: clear invalid_argument errors, nothing stored', async (t) => {
  const { store } = openStore(t);
  for (const retentionHours of [0, 73, 1.5, -1, Number.NaN]) {
    rejects(t, () => store.create({ retentionHours }), 'invalid_argument', /retention hours must be an integer from 1 to 72/);
  }
  rejects(t, () => store.create({ plan: 'gold' as never }), 'invalid_argument', /plan must be one of builder, payg, enterprise/);
  rejects(t, () => store.create({ entitlements: ['telepathy' as never] }), 'invalid_argument', /unknown entitlement 'telepathy'/);
  for (const defaultLanguage of ['english', 'en_US', 'en-USA', 'xx', 'zh', '', 'auto']) {
    rejects(t, () => store.create({ defaultLanguage }), 'invalid_argument', /default language/);
  }
  rejects(t, () => store.create({ tenant: '' }), 'invalid_argument', /tenant/);
  rejects(t, () => store.create({ tenant: 'a b' }), 'invalid_argument', /tenant/);
  rejects(t, () => store.create({ rateLimitPerMinute: 0 }), 'invalid_argument', /rate limit/);
  t.equal(store.count(), 0);
});

t.test('update: patches the named fields, validates, not_found for unknown ids', async (t) => {
  const { store } = openStore(t);
  const { record } = store.create({ tenant: 'acme' });
  const updated = store.update(record.id, { plan: 'builder', entitlements: ['patterns'], retentionHours: 12, defaultLanguage: 'fr', billingState: 'paused', rateLimitPerMinute: 30 });
  t.match(updated, { id: record.id, tenant: 'acme', plan: 'builder', entitlements: ['patterns'], retentionHours: 12, defaultLanguage: 'fr', billingState: 'paused', rateLimitPerMinute: 30 });
  t.same(store.update(record.id, { defaultLanguage: null, rateLimitPerMinute: null }), { ...updated, defaultLanguage: null, rateLimitPerMinute: null });
  t.same(store.update(record.id, {}), store.get(record.id), 'an empty patch changes nothing');
  rejects(t, () => store.update(record.id, { retentionHours: 100 }), 'invalid_argument', /retention/);
  rejects(t, () => store.update(record.id, { billingState: 'closed' as never }), 'invalid_argument', /billing state/);
  t.equal(store.get(record.id)?.retentionHours, 12, 'a refused patch changes nothing');
  rejects(t, () => store.update('key_ZZZZZZZZZZZZ', { plan: 'payg' }), 'not_found', /no API key/);
  t.equal(store.get('not-an-id'), null);
});

t.test('a pasted secret key is never echoed in a not_found message', async (t) => {
  const { store } = openStore(t);
  const { key } = store.create();
  const error = thrown(() => store.update(key, { plan: 'payg' })) as Error;
  t.match(error, { code: 'not_found' });
  t.notOk(error.message.includes(secretOf(key)));
});

t.test('list: every key, oldest first', async (t) => {
  const { store } = openStore(t);
  const a = store.create({}, new Date('2030-01-01T00:00:00Z'));
  const b = store.create({}, new Date('2030-01-02T00:00:00Z'));
  t.same(store.list().map((r) => r.id), [a.record.id, b.record.id]);
});

t.test('dictionaries: per key and language family, trimmed, deduplicated, replaced', async (t) => {
  const { store } = openStore(t);
  const { record } = store.create();
  const other = store.create().record;
  store.setDictionary(record.id, 'en', ['  metoprolol ', 'Atorvastatin', 'metoprolol', 'METOPROLOL', 'troponin']);
  t.same(store.getDictionary(record.id, 'en'), ['metoprolol', 'Atorvastatin', 'troponin']);
  t.same(store.getDictionary(record.id, 'es'), [], 'another family');
  t.same(store.getDictionary(other.id, 'en'), [], 'another key');
  store.setDictionary(record.id, 'en', ['aspirin']);
  t.same(store.getDictionary(record.id, 'en'), ['aspirin'], 'replaces the list');
  store.setDictionary(record.id, 'en', []);
  t.same(store.getDictionary(record.id, 'en'), []);

  const maxTerm = 'x'.repeat(96);
  store.setDictionary(record.id, 'de', [maxTerm, 'é'.repeat(96)]);
  t.same(store.getDictionary(record.id, 'de'), [maxTerm, 'é'.repeat(96)]);
  const thousand = Array.from({ length: 1000 }, (_, i) => `term ${i}`);
  store.setDictionary(record.id, 'fr', [...thousand, 'TERM 1']);
  t.equal(store.getDictionary(record.id, 'fr').length, 1000, '1,000 distinct terms (duplicates do not count)');

  rejects(t, () => store.setDictionary(record.id, 'en', [...thousand, 'one more']), 'invalid_argument', /at most 1000 terms/);
  rejects(t, () => store.setDictionary(record.id, 'en', ['x'.repeat(97)]), 'invalid_argument', /term 1 is longer than 96/);
  rejects(t, () => store.setDictionary(record.id, 'en', ['ok', '   ']), 'invalid_argument', /term 2 is empty/);
  rejects(t, () => store.setDictionary(record.id, 'en', ['tab\there']), 'invalid_argument', /control character/);
  rejects(t, () => store.setDictionary(record.id, 'en-GB', ['x']), 'invalid_argument', /language family/);
  rejects(t, () => store.setDictionary(record.id, 'xx', ['x']), 'invalid_argument', /language family/);
  rejects(t, () => store.setDictionary('key_ZZZZZZZZZZZZ', 'en', ['x']), 'not_found', /no API key/);
  t.same(store.getDictionary(record.id, 'en'), [], 'refused lists change nothing');
});
