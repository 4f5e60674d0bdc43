// `svc-stt webhooks secret ...` through a real child process, as scripts use it (docs/DESIGN.md
// "Interfaces that scripts rely on": `create --json` prints exactly {"secret","version"}): the printed
// secret is the one the server signs with, listings carry no secret material, revoke stops every
// version signing, exit codes 1 (refused) and 2 (command line).
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import t, { type Test } from 'tap';

import { KyselyWebhookSecretStore } from '../../src/store/kysely/kysely-webhook-secret-store.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { databasePath, openDatabase } from '../../src/store/sqlite/database.js';
import { signingKeyOf } from '../../src/store/webhook-signing-secret.js';
import { loadWebhookMasterKey, WEBHOOK_MASTER_KEY_FILE } from '../../src/webhooks/master-key.js';
import { testKeyStore } from '../helpers/test-sealer.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
type Env = Record<string, string>;

function childEnv(dataDir: string, extra: Env): NodeJS.ProcessEnv {
  // Without tap's NODE_OPTIONS (its process tracking), which only slows the child down.
  const { NODE_OPTIONS, SVC_CONFIG, SVC_WEBHOOK_MASTER_KEY, ...env } = process.env;
  return { ...env, SVC_DATA_DIR: dataDir, ...extra };
}

const CLI = [process.execPath, '--import', 'tsx', join(ROOT, 'src/cli/run.ts')] as const;

function cli(dataDir: string, args: string[], extra: Env = {}) {
  const result = spawnSync(CLI[0], [...CLI.slice(1), ...args], { cwd: ROOT, env: childEnv(dataDir, extra), encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** An API key made the way `keys create` makes it, in-process (one child process fewer). */
async function newKey(dataDir: string): Promise<string> {
  const db = openDatabase(databasePath(dataDir));
  try {
    return (await testKeyStore(sqliteStoreDb(db)).create()).record.id;
  } finally {
    db.close();
  }
}

/** What the server sees: the store opened with the master key it would load. */
function serverView<T>(t: Test, dataDir: string, configured: string | null, look: (secrets: KyselyWebhookSecretStore) => Promise<T>): Promise<T> {
  const db = openDatabase(databasePath(dataDir));
  t.teardown(() => db.close());
  return look(new KyselyWebhookSecretStore(sqliteStoreDb(db), loadWebhookMasterKey(dataDir, configured)));
}

t.test('create --json prints exactly {"secret","version"}; the server signs with that secret', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const keyId = await newKey(dataDir);
  const result = cli(dataDir, ['webhooks', 'secret', 'create', '--key', keyId, '--json']);
  t.equal(result.code, 0, result.stderr);
  t.equal(result.stderr, '');
  t.match(result.stdout, /^\{"secret":"whsec_[A-Za-z0-9+/]{43}=","version":1\}\n$/, 'one line, these two fields in this order');
  const { secret } = JSON.parse(result.stdout);
  t.equal(statSync(join(dataDir, WEBHOOK_MASTER_KEY_FILE)).mode & 0o777, 0o600, 'the master key was created in the data folder');
  t.same(await serverView(t, dataDir, null, (secrets) => secrets.signingKey(keyId, 1, Date.now())), signingKeyOf(secret));

  const again = cli(dataDir, ['webhooks', 'secret', 'create', '--key', keyId, '--json']);
  t.equal(again.code, 1, 'a second create is refused');
  t.equal(again.stdout, '');
  t.match(again.stderr, /^svc-stt: .*already has an active webhook signing secret \(version 1\); use rotate/);
});

t.test('rotate makes version 2; list --json shows the states and no secret material', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const keyId = await newKey(dataDir);
  const first = JSON.parse(cli(dataDir, ['webhooks', 'secret', 'create', '--key', keyId, '--json']).stdout);
  const rotated = cli(dataDir, ['webhooks', 'secret', 'rotate', '--key', keyId, '--json']);
  t.equal(rotated.code, 0, rotated.stderr);
  t.match(rotated.stdout, /^\{"secret":"whsec_[A-Za-z0-9+/]{43}=","version":2\}\n$/);
  const second = JSON.parse(rotated.stdout);
  t.not(second.secret, first.secret);

  const result = cli(dataDir, ['webhooks', 'secret', 'list', '--key', keyId, '--json']);
  t.equal(result.code, 0, result.stderr);
  t.match(result.stdout, /^[^\n]+\n$/, 'one line');
  const listed = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
  t.match(listed, [
    { version: 1, state: 'previous', created_at: String, usable_until: String, revoked_at: null },
    { version: 2, state: 'active', created_at: String, usable_until: null, revoked_at: null },
  ]);
  t.same(Object.keys(listed[0]).sort(), ['created_at', 'revoked_at', 'state', 'usable_until', 'version']);
  t.equal(Date.parse(listed[0].usable_until as string) - Date.parse(listed[1].created_at as string), 24 * 3600_000, 'usable for 24 h from the rotation');
  for (const { secret } of [first, second]) {
    t.notOk(result.stdout.includes(secret.slice('whsec_'.length, 20)), 'no secret material');
  }

  const human = cli(dataDir, ['webhooks', 'secret', 'list', '--key', keyId]);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /^VERSION +STATE +CREATED +SIGNS UNTIL +REVOKED\n1 +previous .* -\n2 +active .* - +-\n$/);
  for (const { secret } of [first, second]) t.notOk(human.stdout.includes(secret.slice('whsec_'.length, 20)));
});

t.test('revoke: every version that still signs stops at once; list shows them revoked; a second revoke is refused', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const keyId = await newKey(dataDir);
  t.equal(cli(dataDir, ['webhooks', 'secret', 'create', '--key', keyId, '--json']).code, 0);
  t.equal(cli(dataDir, ['webhooks', 'secret', 'rotate', '--key', keyId, '--json']).code, 0);
  const revoked = cli(dataDir, ['webhooks', 'secret', 'revoke', '--key', keyId, '--json']);
  t.equal(revoked.code, 0, revoked.stderr);
  t.equal(revoked.stdout, '{"revoked_versions":[1,2]}\n', 'the previous version within its 24 h too');
  t.same(await serverView(t, dataDir, null, (secrets) => secrets.signingKeys(keyId, Date.now())), [], 'none signs');
  const before = Date.now();
  const listed = cli(dataDir, ['webhooks', 'secret', 'list', '--key', keyId]);
  t.match(listed.stdout, /\n1 +revoked .*\n2 +revoked .*\n$/);
  const json = JSON.parse(cli(dataDir, ['webhooks', 'secret', 'list', '--key', keyId, '--json']).stdout) as Array<Record<string, string | null>>;
  t.match(json, [
    { version: 1, state: 'revoked', revoked_at: String },
    { version: 2, state: 'revoked', revoked_at: String, usable_until: null },
  ]);
  t.equal(json[0].revoked_at, json[1].revoked_at, 'both stopped by the one revocation');
  t.ok(Date.parse(json[0].revoked_at!) <= before, 'when the revocation ran');
  for (const { version, revoked_at } of json)
    t.match(listed.stdout, new RegExp(`\\n${version} +revoked .* ${revoked_at!.replace(/\./g, '\\.')}\\n`), 'the table says when too');
  const again = cli(dataDir, ['webhooks', 'secret', 'revoke', '--key', keyId]);
  t.equal(again.code, 1);
  t.match(again.stderr, /has no webhook signing secret that still signs; nothing to revoke/);
});

t.test('without --json the new secret comes with a note that it is shown once', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const keyId = await newKey(dataDir);
  const result = cli(dataDir, ['webhooks', 'secret', 'create', '--key', keyId]);
  t.equal(result.code, 0, result.stderr);
  t.match(result.stdout, /version 1 for key_\w+\.\nThe secret is shown only this once.*\n\n {2}whsec_[A-Za-z0-9+/]{43}=\n/);
});

t.test('SVC_WEBHOOK_MASTER_KEY seals the secrets instead of a data-folder key', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const keyId = await newKey(dataDir);
  const masterKey = randomBytes(32).toString('base64');
  const result = cli(dataDir, ['webhooks', 'secret', 'create', '--key', keyId, '--json'], { SVC_WEBHOOK_MASTER_KEY: masterKey });
  t.equal(result.code, 0, result.stderr);
  t.notOk(existsSync(join(dataDir, WEBHOOK_MASTER_KEY_FILE)), 'no key file written');
  const { secret } = JSON.parse(result.stdout);
  t.same(await serverView(t, dataDir, masterKey, (secrets) => secrets.signingKey(keyId, 1, Date.now())), signingKeyOf(secret));

  const bad = cli(dataDir, ['webhooks', 'secret', 'list', '--key', keyId], { SVC_WEBHOOK_MASTER_KEY: 'c2hvcnQ=' });
  t.equal(bad.code, 1);
  t.match(bad.stderr, /SVC_WEBHOOK_MASTER_KEY.*32 bytes/);
});

t.test('concurrent rotations each get their own version', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const keyId = await newKey(dataDir);
  t.equal(cli(dataDir, ['webhooks', 'secret', 'create', '--key', keyId, '--json']).code, 0);
  const rotate = () =>
    promisify(execFile)(CLI[0], [...CLI.slice(1), 'webhooks', 'secret', 'rotate', '--key', keyId, '--json'], { cwd: ROOT, env: childEnv(dataDir, {}) });
  const versions = (await Promise.all([rotate(), rotate(), rotate()])).map((result) => JSON.parse(result.stdout).version as number);
  t.same(versions.sort(), [2, 3, 4]);
  const listed = await serverView(t, dataDir, null, (secrets) => secrets.list(keyId, Date.now()));
  t.same(
    listed.map((summary) => summary.state),
    ['previous', 'previous', 'previous', 'active'],
    'exactly one active version',
  );
});

t.test('exit codes: 1 for an unknown key, 2 for a mistake on the command line', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const unknown = cli(dataDir, ['webhooks', 'secret', 'create', '--key', 'key_ZZZZZZZZZZZZ', '--json']);
  t.equal(unknown.code, 1);
  t.equal(unknown.stdout, '');
  t.equal(unknown.stderr, "svc-stt: no API key with id 'key_ZZZZZZZZZZZZ'\n");

  const missing = cli(dataDir, ['webhooks', 'secret', 'create', '--json']);
  t.equal(missing.code, 2);
  t.equal(missing.stdout, '');
  t.match(missing.stderr, /^svc-stt: --key KEY_ID is required\nusage: npx svc-stt webhooks secret create/);

  for (const args of [
    ['webhooks', 'secret', 'delete', '--key', 'key_ZZZZZZZZZZZZ'],
    ['webhooks', 'secret', 'list', '--key', 'key_ZZZZZZZZZZZZ', 'extra'],
    ['webhooks'],
  ]) {
    const result = cli(dataDir, args);
    t.equal(result.code, 2, args.join(' '));
    t.match(result.stderr, /usage: npx svc-stt webhooks secret create --key KEY_ID/, 'shows the usage');
  }
});
