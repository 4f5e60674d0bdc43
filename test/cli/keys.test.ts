// The admin commands through a real child process, as scripts use them (docs/DESIGN.md "Interfaces that
// scripts rely on"): `keys create --json` prints exactly {"key","id","tenant"}; `keys list --json`
// never prints a key; exit codes; stdin for dictionaries. Finer cases: admin-commands.test.ts.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { databasePath, openDatabase } from '../../src/store/sqlite/database.js';
import { testKeyStore } from '../helpers/test-sealer.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');

function cli(dataDir: string, args: string[], input?: string) {
  // Without tap's NODE_OPTIONS (its process tracking), which only slows the child down.
  const { NODE_OPTIONS, SVC_CONFIG, ...env } = process.env;
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/run.ts'), ...args], {
    cwd: ROOT,
    env: { ...env, SVC_DATA_DIR: dataDir },
    input,
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

t.test('keys create --json prints exactly one line {"key","id","tenant"}; the key works', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const result = cli(dataDir, ['keys', 'create', '--json', '--tenant', 'acme', '--plan', 'builder', '--entitlement', 'patterns']);
  t.equal(result.code, 0, result.stderr);
  t.equal(result.stderr, '');
  t.match(result.stdout, /^[^\n]+\n$/, 'one line');
  const created = JSON.parse(result.stdout);
  t.same(Object.keys(created), ['key', 'id', 'tenant']);
  t.match(created, { key: /^svc_[0-9A-Za-z]{12}_[A-Za-z0-9_-]{43}$/, id: /^key_[0-9A-Za-z]{12}$/, tenant: 'acme' });

  const db = openDatabase(databasePath(dataDir));
  t.teardown(() => db.close());
  t.match(
    await testKeyStore(sqliteStoreDb(db)).authenticate(created.key),
    { id: created.id, tenant: 'acme', plan: 'builder', entitlements: ['patterns', 'language_detection'] },
    'the server accepts the printed key',
  );
});

t.test('keys list --json: an array of {id, tenant, ...}, never a key', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const a = JSON.parse(cli(dataDir, ['keys', 'create', '--json']).stdout);
  const b = JSON.parse(cli(dataDir, ['keys', 'create', '--json', '--no-language-detection']).stdout);
  const result = cli(dataDir, ['keys', 'list', '--json']);
  t.equal(result.code, 0, result.stderr);
  t.match(result.stdout, /^[^\n]+\n$/, 'one line');
  const listed = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
  t.same(
    listed.map((k) => [k.id, k.tenant]),
    [
      [a.id, a.tenant],
      [b.id, b.tenant],
    ],
  );
  t.same(Object.keys(listed[0]).sort(), [
    'billing_state',
    'created_at',
    'default_language',
    'entitlements',
    'id',
    'last_used_at',
    'plan',
    'rate_limit_per_minute',
    'redact_always',
    'retention_hours',
    'revoke_at',
    'revoked_at',
    'smart_format_default',
    'tenant',
  ]);
  t.same(listed[1].entitlements, []);
  for (const { key } of [a, b]) {
    t.notOk(result.stdout.includes(key), 'not the key');
    t.notOk(result.stdout.includes(key.slice(17)), 'not the secret');
  }
});

t.test('keys rotate --json prints one line {"key","id","tenant","rotated"}; both keys work until the overlap ends', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const old = JSON.parse(cli(dataDir, ['keys', 'create', '--json', '--tenant', 'acme']).stdout);
  const result = cli(dataDir, ['keys', 'rotate', old.id, '--overlap-hours', '1', '--json']);
  t.equal(result.code, 0, result.stderr);
  t.match(result.stdout, /^[^\n]+\n$/, 'one line');
  const rotated = JSON.parse(result.stdout);
  t.same(Object.keys(rotated), ['key', 'id', 'tenant', 'rotated']);
  t.match(rotated, { key: /^svc_/, id: /^key_/, tenant: 'acme', rotated: { id: old.id, revoked_at: null, revoke_at: /^\d{4}-/ } });
  const listed = JSON.parse(cli(dataDir, ['keys', 'list', '--json']).stdout) as Array<Record<string, unknown>>;
  t.same(
    listed.map((k) => [k.id, k.revoke_at]),
    [
      [old.id, rotated.rotated.revoke_at],
      [rotated.id, null],
    ],
    "list shows when the rotated key's revocation comes",
  );

  const db = openDatabase(databasePath(dataDir));
  t.teardown(() => db.close());
  const keys = testKeyStore(sqliteStoreDb(db));
  t.match(await keys.authenticate(old.key), { id: old.id });
  t.match(await keys.authenticate(rotated.key), { id: rotated.id, tenant: 'acme' });
  const refused = cli(dataDir, ['keys', 'rotate', old.id, '--overlap-hours', '200']);
  t.equal(refused.code, 2, 'an overlap past a week is a mistake on the command line');
  t.match(refused.stderr, /--overlap-hours must be from 0 to 168/);
});

t.test('exit codes: 2 for a mistake on the command line, 1 for an unknown key', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const badPlan = cli(dataDir, ['keys', 'create', '--plan', 'gold']);
  t.equal(badPlan.code, 2);
  t.equal(badPlan.stdout, '');
  t.equal(badPlan.stderr, 'svc-stt: plan must be one of builder, payg, enterprise\n');
  const unknown = cli(dataDir, ['keys', 'revoke', 'key_ZZZZZZZZZZZZ']);
  t.equal(unknown.code, 1);
  t.equal(unknown.stderr, "svc-stt: no API key with id 'key_ZZZZZZZZZZZZ'\n");
});

t.test('dictionary set reads a file or stdin; show prints one term per line', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const { id } = JSON.parse(cli(dataDir, ['keys', 'create', '--json']).stdout);
  const set = cli(dataDir, ['dictionary', 'set', '--key', id, '--language', 'en', '-'], 'metoprolol\n\n  atorvastatin \r\nMetoprolol\n');
  t.equal(set.code, 0, set.stderr);
  t.equal(set.stdout, `stored 2 terms for ${id} (en); 1 duplicate lines skipped\n`);
  t.equal(cli(dataDir, ['dictionary', 'show', '--key', id, '--language', 'en']).stdout, 'metoprolol\natorvastatin\n');
});
