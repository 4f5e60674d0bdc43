// keys and dictionary commands run in-process (output captured, errors as thrown): options, human
// output, updates, revocation, and every refusal. keys.test.ts covers the same through a process.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import t, { type Test } from 'tap';

import { runDictionaryCommand } from '../../src/cli/dictionary-command.js';
import { runKeysCommand } from '../../src/cli/keys-command.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { KeyStoreError } from '../../src/store/key-store-error.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { databasePath, openDatabase } from '../../src/store/sqlite/database.js';
import { testKeyStore } from '../helpers/test-sealer.js';

type Command = typeof runKeysCommand;

/** A fresh data folder for this test, used through SVC_DATA_DIR like the real command. */
function useDataDir(t: Test): string {
  const dataDir = join(t.testdir(), 'data');
  const saved = { dir: process.env.SVC_DATA_DIR, config: process.env.SVC_CONFIG };
  process.env.SVC_DATA_DIR = dataDir;
  delete process.env.SVC_CONFIG;
  t.teardown(() => {
    process.env.SVC_DATA_DIR = saved.dir;
    if (saved.config !== undefined) process.env.SVC_CONFIG = saved.config;
    if (saved.dir === undefined) delete process.env.SVC_DATA_DIR;
  });
  return dataDir;
}

async function run(command: Command, args: string[]): Promise<string> {
  let text = '';
  await command(args, { write: (chunk: string) => (text += chunk) });
  return text;
}

async function failure(command: Command, args: string[]): Promise<Error> {
  try {
    await run(command, args);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`expected ${args.join(' ')} to fail`);
}

const keys = (args: string[]) => run(runKeysCommand, args);
const dictionary = (args: string[]) => run(runDictionaryCommand, args);
const createJson = async (args: string[] = []) => JSON.parse(await keys(['create', '--json', ...args])) as { key: string; id: string; tenant: string };
const listJson = async () => JSON.parse(await keys(['list', '--json'])) as Array<Record<string, unknown>>;

t.test('create: every option lands in the listing', async (t) => {
  useDataDir(t);
  const created = await createJson([
    '--tenant',
    'acme',
    '--plan',
    'enterprise',
    '--entitlement',
    'patterns',
    '--default-language',
    'es-419',
    '--retention-hours',
    '48',
    '--rate-limit',
    '90',
  ]);
  t.equal(created.tenant, 'acme');
  t.match((await listJson())[0], {
    id: created.id,
    tenant: 'acme',
    plan: 'enterprise',
    entitlements: ['patterns', 'language_detection'],
    default_language: 'es-419',
    retention_hours: 48,
    rate_limit_per_minute: 90,
    billing_state: 'active',
    revoked_at: null,
  });
  const defaults = await createJson();
  t.match((await listJson())[1], { id: defaults.id, plan: 'payg', entitlements: ['language_detection'], retention_hours: 24, default_language: null });
});

t.test('create without --json shows the key once, for people', async (t) => {
  const dataDir = useDataDir(t);
  const text = await keys(['create', '--tenant', 'clinic-7']);
  t.match(text, /^Created API key key_\w{12} for tenant clinic-7 \(plan payg, entitlements: language_detection\)\./);
  t.match(text, /shown only this once/);
  const key = /\n {2}(svc_\S+)\n/.exec(text)?.[1];
  t.ok(key);
  const db = openDatabase(databasePath(dataDir));
  t.teardown(() => db.close());
  t.ok(await testKeyStore(sqliteStoreDb(db)).authenticate(key!));
});

t.test('list: empty, JSON and table, never a key', async (t) => {
  const dataDir = useDataDir(t);
  t.same(await listJson(), []);
  t.match(await keys(['list']), /no API keys/);
  const a = await createJson(['--tenant', 'acme']);
  const table = await keys(['list']);
  t.match(table, /^ID\s+TENANT\s+PLAN\s+STATE\s+REVOKE AT\s+LAST USED\s+RETENTION\s+LANGUAGE\s+ENTITLEMENTS\s+TEXT\n/);
  t.match(table, new RegExp(`${a.id}\\s+acme\\s+payg\\s+active\\s+-\\s+never\\s+24h\\s+-\\s+language_detection`));
  t.notOk(table.includes(a.key.slice(17)));
  t.match(await listJson(), [{ id: a.id, last_used_at: null }], 'never used: null');

  const db = openDatabase(databasePath(dataDir));
  t.teardown(() => db.close());
  const usedAt = new Date('2030-04-05T06:07:08.000Z');
  t.equal(await testKeyStore(sqliteStoreDb(db)).recordUse(a.id, usedAt), true);
  t.match(await listJson(), [{ id: a.id, last_used_at: usedAt.toISOString() }], 'used: when, as an ISO time');
  t.match(await keys(['list']), new RegExp(`${a.id}\\s+acme\\s+payg\\s+active\\s+-\\s+2030-04-05T06:07:08\\.000Z\\s+24h`));
});

t.test('update and revoke', async (t) => {
  const dataDir = useDataDir(t);
  const created = await createJson();
  const updated = JSON.parse(
    await keys([
      'update',
      created.id,
      '--json',
      '--plan',
      'builder',
      '--billing',
      'paused',
      '--entitlement',
      'patterns',
      '--retention-hours',
      '12',
      '--default-language',
      'fr',
      '--rate-limit',
      '30',
    ]),
  );
  t.match(updated, {
    id: created.id,
    plan: 'builder',
    billing_state: 'paused',
    entitlements: ['patterns'],
    retention_hours: 12,
    default_language: 'fr',
    rate_limit_per_minute: 30,
  });
  const cleared = JSON.parse(await keys(['update', created.id, '--json', '--entitlement', 'none', '--default-language', 'none', '--rate-limit', 'none']));
  t.match(cleared, { entitlements: [], default_language: null, rate_limit_per_minute: null, plan: 'builder' });
  const standing = JSON.parse(await keys(['update', created.id, '--json', '--smart-format', 'on', '--redact-always', 'identifiers,health']));
  t.match(standing, { smart_format_default: true, redact_always: ['identifiers', 'health'] });
  t.match(await keys(['list']), /smart_format redact=identifiers,health/, 'the table shows the standing choices');
  const unstanding = JSON.parse(await keys(['update', created.id, '--json', '--smart-format', 'off', '--redact-always', 'none']));
  t.match(unstanding, { smart_format_default: false, redact_always: null });
  t.match(await keys(['update', created.id, '--billing', 'active']), new RegExp(`^updated ${created.id}\\n`));

  t.equal(await keys(['revoke', created.id]), `revoked ${created.id}\n`);
  t.match(await keys(['revoke', created.id]), new RegExp(`^${created.id} was already revoked \\(\\d{4}-`));
  t.match(JSON.parse(await keys(['revoke', created.id, '--json'])), { id: created.id, revoked_at: /^\d{4}-/ });
  const db = openDatabase(databasePath(dataDir));
  t.teardown(() => db.close());
  t.equal(await testKeyStore(sqliteStoreDb(db)).authenticate(created.key), null);
});

t.test('rotate: a new key with the old terms, shown once; the old one works until the overlap ends, shown by list', async (t) => {
  const dataDir = useDataDir(t);
  const old = await createJson(['--tenant', 'clinic-9', '--plan', 'enterprise', '--rate-limit', '90', '--retention-hours', '48']);
  const before = Date.now();
  const rotated = JSON.parse(await keys(['rotate', old.id, '--overlap-hours', '24', '--json']));
  t.same(Object.keys(rotated), ['key', 'id', 'tenant', 'rotated']);
  t.match(rotated, { key: /^svc_/, id: /^key_/, tenant: 'clinic-9', rotated: { id: old.id, revoked_at: null, revoke_at: String } });
  const revokeAt = Date.parse(rotated.rotated.revoke_at);
  t.ok(revokeAt >= before + 24 * 3_600_000 && revokeAt <= Date.now() + 24 * 3_600_000, 'revoked 24 hours from now');

  const listed = await listJson();
  t.match(listed, [
    { id: old.id, revoke_at: rotated.rotated.revoke_at, revoked_at: null },
    { id: rotated.id, tenant: 'clinic-9', plan: 'enterprise', rate_limit_per_minute: 90, retention_hours: 48, revoke_at: null, revoked_at: null },
  ]);
  t.match(
    await keys(['list']),
    new RegExp(`${old.id}\\s+clinic-9\\s+enterprise\\s+active\\s+${rotated.rotated.revoke_at.replace(/\./g, '\\.')}\\s+never\\s+48h`),
  );
  const db = openDatabase(databasePath(dataDir));
  t.teardown(() => db.close());
  const store = testKeyStore(sqliteStoreDb(db));
  t.match(await store.authenticate(old.key), { id: old.id }, 'the old key works during the overlap');
  t.match(await store.authenticate(rotated.key), { id: rotated.id }, 'and so does the new one');
  const again = await failure(runKeysCommand, ['rotate', old.id, '--overlap-hours', '1']);
  t.ok(again instanceof UsageError, 'a key being rotated is not rotated again');
  t.match(again.message, /is being rotated already: it is revoked at /);

  const text = await keys(['rotate', rotated.id, '--overlap-hours', '0']);
  t.match(
    text,
    new RegExp(
      `^Rotated API key ${rotated.id}: the new key (key_\\w{12}) \\(tenant clinic-9, plan enterprise\\) works now; ${rotated.id} is revoked now\\.\\n`,
    ),
  );
  t.match(text, /shown only this once; store it now:\n\n {2}svc_\S+\n\n$/);
  t.equal(await store.authenticate(rotated.key), null, 'an overlap of 0 revokes the old key at once');
  t.match(
    (await listJson()).find((k) => k.id === rotated.id),
    { revoked_at: String, revoke_at: String },
  );
  const third = /\n {2}(svc_\S+)\n/.exec(text)![1];
  t.match(await store.authenticate(third), { tenant: 'clinic-9', plan: 'enterprise' }, 'the key printed is the new one');

  const zero = JSON.parse(await keys(['rotate', (await createJson()).id, '--overlap-hours', '0', '--json']));
  t.match(zero.rotated, { revoked_at: String, closed_upload_slots: 0, deleted_uploads: 0, cancelled_webhook_events: 0 }, 'as `keys revoke --json` says it');
});

t.test('refusals: usage errors (exit 2) and unknown keys (exit 1); secrets never echoed', async (t) => {
  useDataDir(t);
  const created = await createJson();
  const usage: Array<[string[], RegExp]> = [
    [[], /usage: npx svc-stt keys create/],
    [['bogus'], /usage: npx svc-stt keys create/],
    [['rotate', created.id], /--overlap-hours is required/],
    [['rotate', created.id, '--overlap-hours', '169'], /^--overlap-hours must be from 0 to 168$/],
    [['rotate', created.id, '--overlap-hours=-1'], /^--overlap-hours must be a whole number$/],
    [['rotate', created.id, '--overlap-hours', '1.5'], /^--overlap-hours must be a whole number$/],
    [['rotate', '--overlap-hours', '1'], /takes one key id/],
    [['create', 'extra'], /takes no arguments/],
    [['create', '--plan', 'gold'], /^plan must be one of builder, payg, enterprise$/],
    [['create', '--retention-hours', '100'], /^retention hours must be an integer from 1 to 72$/],
    [['create', '--retention-hours', 'ten'], /^--retention-hours must be a whole number$/],
    [['create', '--rate-limit=-5'], /^--rate-limit must be a whole number$/],
    [['create', '--entitlement', 'telepathy'], /^unknown entitlement 'telepathy'/],
    [['create', '--default-language', 'klingon'], /^default language must be a tag like/],
    [['create', '--tenant', 'has space'], /^tenant must be/],
    [['create', '--bogus'], /Unknown option '--bogus'/],
    [['list', 'extra'], /takes no arguments/],
    [['update', created.id], /nothing to change/],
    [['update', created.id, '--billing', 'closed'], /^billing state must be one of active, paused$/],
    [['update', created.id, '--entitlement', 'none', '--entitlement', 'patterns'], /cannot be combined/],
    [['revoke'], /takes one key id/],
    [['revoke', 'a', 'b'], /takes one key id/],
  ];
  for (const [args, message] of usage) {
    const error = await failure(runKeysCommand, args);
    t.ok(error instanceof UsageError, `${args.join(' ')}: usage error`);
    t.match(error.message, message, args.join(' '));
  }
  for (const args of [
    ['revoke', 'key_ZZZZZZZZZZZZ'],
    ['update', 'key_ZZZZZZZZZZZZ', '--plan', 'payg'],
    ['revoke', created.key],
    ['rotate', 'key_ZZZZZZZZZZZZ', '--overlap-hours', '1'],
    ['rotate', created.key, '--overlap-hours', '1'],
  ]) {
    const error = await failure(runKeysCommand, args);
    t.match(error, { code: 'not_found' }, args.join(' '));
    t.ok(error instanceof KeyStoreError && !('exitCode' in error), 'exit code 1');
    t.notOk(error.message.includes(created.key.slice(17)), 'no secret in the message');
  }
});

t.test('dictionary set and show', async (t) => {
  const dataDir = useDataDir(t);
  const { id, key } = await createJson();
  const file = join(dataDir, '..', 'terms.txt');
  writeFileSync(file, 'metoprolol\n\n  atorvastatin  \r\ntroponin\n');
  t.equal(await dictionary(['set', '--key', id, '--language', 'en', file]), `stored 3 terms for ${id} (en)\n`);
  t.equal(await dictionary(['show', '--key', id, '--language', 'en']), 'metoprolol\natorvastatin\ntroponin\n');
  t.same(JSON.parse(await dictionary(['show', '--key', id, '--language', 'en', '--json'])), ['metoprolol', 'atorvastatin', 'troponin']);
  t.equal(await dictionary(['show', '--key', id, '--language', 'es']), '', 'another language is empty');
  writeFileSync(file, '');
  t.equal(await dictionary(['set', '--key', id, '--language', 'en', file]), `stored 0 terms for ${id} (en)\n`, 'an empty file clears the list');

  writeFileSync(file, `ok\n${'x'.repeat(97)}\n`);
  const usage: Array<[string[], RegExp]> = [
    [['set', '--key', id, '--language', 'en', file], /^dictionary term 2 is longer than 96 characters$/],
    [['set', '--key', id, '--language', 'en-GB', file], /supported language family/],
    [['show', '--key', id, '--language', 'klingon'], /supported language family/],
    [['show', '--language', 'en'], /--key and --language are required/],
    [['show', '--key', id], /--key and --language are required/],
    [['set', '--key', id, '--language', 'en'], /takes one FILE/],
    [['show', '--key', id, '--language', 'en', file], /takes no FILE/],
    [['show', '--key', key, '--language', 'en'], /^--key takes the key id \(key_\.\.\.\), not the secret key$/],
    [['purge'], /usage: npx svc-stt dictionary set/],
  ];
  for (const [args, message] of usage) {
    const error = await failure(runDictionaryCommand, args);
    t.ok(error instanceof UsageError, `${args.join(' ')}: usage error`);
    t.match(error.message, message, args.join(' '));
  }
  t.match(await failure(runDictionaryCommand, ['show', '--key', 'key_ZZZZZZZZZZZZ', '--language', 'en']), { code: 'not_found' });
  writeFileSync(file, 'aspirin\n');
  t.match(await failure(runDictionaryCommand, ['set', '--key', 'key_ZZZZZZZZZZZZ', '--language', 'en', file]), { code: 'not_found' });
  await t.rejects(run(runDictionaryCommand, ['set', '--key', id, '--language', 'en', join(dataDir, 'missing.txt')]), { code: 'ENOENT' });
});
