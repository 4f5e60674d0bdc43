// SqliteWebhookSecretStore on a real database file: versions, rotation with its 24-hour overlap,
// encryption at rest under the master key (bound to the row), and refusals for unknown keys.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openDatabase, type Database } from '../../src/store/sqlite/database.js';
import { SqliteKeyStore } from '../../src/store/sqlite/sqlite-key-store.js';
import { SqliteWebhookSecretStore } from '../../src/store/sqlite/sqlite-webhook-secret-store.js';
import { SECRET_ROTATION_OVERLAP_MS, WebhookSecretError } from '../../src/store/webhook-secret-store.js';
import { signingKeyOf } from '../../src/store/webhook-signing-secret.js';

const T0 = Date.parse('2031-03-04T05:06:07.000Z');
const HOUR = 3600_000;
const DAY = 24 * HOUR;

function open(t: Test) {
  const dir = t.testdir();
  const db = openDatabase(join(dir, 'svc-stt.db'));
  t.teardown(() => db.close());
  const masterKey = randomBytes(32);
  const keys = new SqliteKeyStore(db);
  return { dir, db, masterKey, keys, secrets: new SqliteWebhookSecretStore(db, masterKey), newKey: () => keys.create().record.id };
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

function refuses(t: Test, run: () => unknown, message: RegExp, what: string): void {
  const error = thrown(run);
  t.ok(error instanceof WebhookSecretError, `${what}: a WebhookSecretError`);
  t.match(error, { message }, what);
}

t.test('create: version 1, active, its key opens for signing', async (t) => {
  const { secrets, newKey } = open(t);
  const keyId = newKey();
  t.equal(secrets.activeVersion(keyId, T0), null, 'no secret yet');
  const created = secrets.create(keyId, T0);
  t.equal(created.version, 1);
  t.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.equal(secrets.activeVersion(keyId, T0), 1);
  t.same(secrets.signingKey(keyId, 1, T0), signingKeyOf(created.secret), 'the stored key is the one shown');
  t.same(secrets.signingKey(keyId, 1, T0 + 365 * DAY), signingKeyOf(created.secret), 'an active version never expires');
  t.same(secrets.list(keyId, T0), [{ version: 1, createdAt: new Date(T0).toISOString(), state: 'active', usableUntil: null }]);
  t.equal(secrets.signingKey(keyId, 2, T0), null, 'no such version');

  refuses(t, () => secrets.create(keyId, T0 + 1000), /already has an active webhook signing secret \(version 1\); use rotate/, 'a second create');
  t.equal(secrets.list(keyId, T0).length, 1, 'nothing added');

  const other = newKey();
  t.equal(secrets.create(other, T0).version, 1, 'versions count per key');
});

t.test('rotate: a new active version; the old one signs until exactly 24 h after, not after', async (t) => {
  const { secrets, newKey } = open(t);
  const keyId = newKey();
  refuses(t, () => secrets.rotate(keyId, T0), /has no webhook signing secret to rotate; use create/, 'rotate before create');
  const first = secrets.create(keyId, T0);
  const rotatedAt = T0 + 5 * HOUR;
  const second = secrets.rotate(keyId, rotatedAt);
  t.equal(second.version, 2);
  t.not(second.secret, first.secret);
  t.equal(secrets.activeVersion(keyId, rotatedAt), 2);
  t.same(secrets.signingKey(keyId, 2, rotatedAt), signingKeyOf(second.secret));

  t.equal(SECRET_ROTATION_OVERLAP_MS, DAY);
  const deadline = rotatedAt + DAY;
  t.same(secrets.signingKey(keyId, 1, rotatedAt), signingKeyOf(first.secret), 'right after the rotation');
  t.same(secrets.signingKey(keyId, 1, deadline), signingKeyOf(first.secret), 'exactly 24 h after');
  t.equal(secrets.signingKey(keyId, 1, deadline + 1), null, '1 ms later it no longer signs');
  t.same(secrets.signingKey(keyId, 2, deadline + 1), signingKeyOf(second.secret), 'the new one does');

  const summary = (state: string) => ({ version: 1, createdAt: new Date(T0).toISOString(), state, usableUntil: new Date(deadline).toISOString() });
  const active = { version: 2, createdAt: new Date(rotatedAt).toISOString(), state: 'active', usableUntil: null };
  t.same(secrets.list(keyId, deadline), [summary('previous'), active]);
  t.same(secrets.list(keyId, deadline + 1), [summary('expired'), active]);
});

t.test('a second rotation within 24 h keeps the first previous version its own deadline', async (t) => {
  const { secrets, newKey } = open(t);
  const keyId = newKey();
  const v1 = secrets.create(keyId, T0);
  const r1 = T0 + HOUR;
  const v2 = secrets.rotate(keyId, r1);
  const r2 = r1 + 3 * HOUR;
  const v3 = secrets.rotate(keyId, r2);
  t.equal(v3.version, 3);
  t.equal(secrets.activeVersion(keyId, r2), 3);
  t.same(secrets.signingKey(keyId, 1, r1 + DAY), signingKeyOf(v1.secret), 'version 1 still until r1 + 24 h');
  t.equal(secrets.signingKey(keyId, 1, r1 + DAY + 1), null, 'not moved by the second rotation');
  t.same(secrets.signingKey(keyId, 2, r2 + DAY), signingKeyOf(v2.secret), 'version 2 until r2 + 24 h');
  t.equal(secrets.signingKey(keyId, 2, r2 + DAY + 1), null);
  t.same(
    secrets.list(keyId, r1 + DAY + 1).map(({ version, state, usableUntil }) => [version, state, usableUntil]),
    [
      [1, 'expired', new Date(r1 + DAY).toISOString()],
      [2, 'previous', new Date(r2 + DAY).toISOString()],
      [3, 'active', null],
    ],
  );
});

t.test('at rest: neither the secret nor its key bytes are anywhere in the database files', async (t) => {
  const { dir, db, secrets, newKey } = open(t);
  const keyId = newKey();
  const shown = [secrets.create(keyId, T0).secret, secrets.rotate(keyId, T0 + HOUR).secret];
  const stored = db.prepare('SELECT iv, ciphertext, auth_tag FROM webhook_secrets WHERE key_id = ? ORDER BY version').all(keyId) as Array<Record<string, Buffer>>;
  t.equal(stored.length, 2);
  t.equal(stored[0].iv.length, 12);
  t.equal(stored[0].auth_tag.length, 16);
  t.not(stored[0].iv.toString('hex'), stored[1].iv.toString('hex'), 'a fresh IV per seal');
  // The WAL holds the newest pages until a checkpoint; read every file in the folder as it is.
  const files = readdirSync(dir).map((name) => ({ name, bytes: readFileSync(join(dir, name)) }));
  t.ok(files.some((file) => file.name.endsWith('-wal') && file.bytes.length > 0), 'the WAL is checked too');
  for (const secret of shown) {
    const key = signingKeyOf(secret);
    for (const { name, bytes } of files) {
      t.notOk(bytes.includes(key), `${name}: not the raw key bytes`);
      t.notOk(bytes.includes(key.toString('base64')), `${name}: not its base64`);
      t.notOk(bytes.includes(key.toString('base64url')), `${name}: not its base64url`);
      t.notOk(bytes.includes(key.toString('hex')), `${name}: not its hex`);
    }
  }
  t.notOk(JSON.stringify(secrets.list(keyId, T0 + HOUR)).includes(shown[1].slice(6, 20)), 'the listing has no secret material');
});

t.test('another master key cannot open the secrets, with a clear error', async (t) => {
  const { db, secrets, newKey } = open(t);
  const keyId = newKey();
  secrets.create(keyId, T0);
  const wrong = new SqliteWebhookSecretStore(db, randomBytes(32));
  refuses(t, () => wrong.signingKey(keyId, 1, T0), new RegExp(`${keyId}:1 cannot be decrypted: the master key does not match`), 'a different master key');
  t.equal(wrong.activeVersion(keyId, T0), 1, 'what needs no decryption still works');
  t.throws(() => new SqliteWebhookSecretStore(db, randomBytes(16)).create(newKey(), T0), { message: /must be 32 bytes/ });
});

t.test('a sealed secret opens only in its own row', async (t) => {
  const { db, secrets, newKey } = open(t);
  const keyId = newKey();
  const other = newKey();
  secrets.create(keyId, T0);
  secrets.rotate(keyId, T0 + HOUR);
  secrets.create(other, T0);
  const copy = db.prepare(`UPDATE webhook_secrets SET
      (ciphertext, iv, auth_tag) = (SELECT ciphertext, iv, auth_tag FROM webhook_secrets WHERE key_id = @fromKey AND version = @fromVersion)
    WHERE key_id = @toKey AND version = @toVersion`);
  // Version 2's sealed bytes moved into version 1's row of the same key.
  copy.run({ fromKey: keyId, fromVersion: 2, toKey: keyId, toVersion: 1 });
  refuses(t, () => secrets.signingKey(keyId, 1, T0 + HOUR), new RegExp(`${keyId}:1 cannot be decrypted`), 'another version of the same key');
  // Another key's version 1 copied into this key's version 1: same version number, different key.
  copy.run({ fromKey: other, fromVersion: 1, toKey: keyId, toVersion: 1 });
  refuses(t, () => secrets.signingKey(keyId, 1, T0 + HOUR), /cannot be decrypted/, 'the same version of another key');
  t.ok(secrets.signingKey(keyId, 2, T0 + HOUR), 'the untouched rows still open');
  t.ok(secrets.signingKey(other, 1, T0 + HOUR));
});

t.test('unknown, malformed and revoked keys are refused', async (t) => {
  const { keys, secrets, newKey } = open(t);
  for (const run of [() => secrets.create('key_ZZZZZZZZZZZZ', T0), () => secrets.rotate('key_ZZZZZZZZZZZZ', T0), () => secrets.list('key_ZZZZZZZZZZZZ', T0)]) {
    refuses(t, run, /^no API key with id 'key_ZZZZZZZZZZZZ'$/, 'an unknown key');
  }
  // An operator who pastes the API key itself must not see it echoed.
  const pasted = keys.create().key;
  const error = thrown(() => secrets.create(pasted, T0)) as Error;
  t.ok(error instanceof WebhookSecretError);
  t.match(error.message, /no API key with id like that/);
  t.notOk(error.message.includes(pasted), 'not echoed');

  const revoked = newKey();
  secrets.create(revoked, T0);
  keys.revoke(revoked);
  refuses(t, () => secrets.rotate(revoked, T0 + HOUR), /is revoked/, 'rotating for a revoked key');
  const fresh = newKey();
  keys.revoke(fresh);
  refuses(t, () => secrets.create(fresh, T0), /is revoked/, 'creating for a revoked key');
  t.equal(secrets.list(revoked, T0).length, 1, 'a revoked key can still be inspected');
  // Events accepted before the revocation stay deliverable under their pinned version.
  t.ok(secrets.signingKey(revoked, 1, T0 + HOUR));
  t.equal(secrets.activeVersion('key_ZZZZZZZZZZZZ', T0), null);
  t.equal(secrets.signingKey('key_ZZZZZZZZZZZZ', 1, T0), null);
});
