// The webhook master key: generated once into the data folder (0600) and reused, or taken from the
// configuration, which wins over the file.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import t from 'tap';

import { loadWebhookMasterKey, WEBHOOK_MASTER_KEY_FILE } from '../../src/webhooks/master-key.js';

t.test('without a configured key: created once with mode 0600, then reused', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const first = loadWebhookMasterKey(dataDir, null);
  t.equal(first.length, 32);
  const path = join(dataDir, WEBHOOK_MASTER_KEY_FILE);
  t.equal(statSync(path).mode & 0o777, 0o600, 'readable by the owner only');
  t.same(Buffer.from(readFileSync(path, 'utf8'), 'base64'), first, 'the file holds the key');
  t.same(readdirSync(dataDir), [WEBHOOK_MASTER_KEY_FILE], 'no temporary file left behind');

  t.same(loadWebhookMasterKey(dataDir, null), first, 'a second load (a restart, the admin CLI) reads the same key');
  t.not(loadWebhookMasterKey(join(t.testdir(), 'other'), null).equals(first), 'another data folder gets its own key');
});

t.test('an existing file is never replaced', async (t) => {
  const dataDir = t.testdir();
  const existing = randomBytes(32);
  writeFileSync(join(dataDir, WEBHOOK_MASTER_KEY_FILE), `${existing.toString('base64')}\n`, { mode: 0o600 });
  t.same(loadWebhookMasterKey(dataDir, null), existing);
});

t.test('the configured key wins over the file, and creates no file', async (t) => {
  const dataDir = t.testdir();
  const configured = randomBytes(32);
  t.same(loadWebhookMasterKey(dataDir, configured.toString('base64')), configured);
  t.same(readdirSync(dataDir), [], 'nothing written when the key is configured');
  const generated = loadWebhookMasterKey(dataDir, null);
  t.notOk(generated.equals(configured), 'the file holds a key of its own');
  t.same(loadWebhookMasterKey(dataDir, configured.toString('base64')), configured, 'still wins once a file exists');
});

t.test('a damaged file or a configured key of the wrong size is refused, not replaced', async (t) => {
  const dataDir = t.testdir();
  const path = join(dataDir, WEBHOOK_MASTER_KEY_FILE);
  writeFileSync(path, randomBytes(16).toString('base64'), { mode: 0o600 });
  t.throws(() => loadWebhookMasterKey(dataDir, null), { message: /webhook master key is damaged/ });
  t.equal(readFileSync(path, 'utf8').length, 24, 'left as it was for the operator to restore');
  t.throws(() => loadWebhookMasterKey(dataDir, randomBytes(31).toString('base64')), { message: /exactly 32 bytes/ });
});

t.test('processes starting together on a fresh folder agree on one key', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  const module = resolve(fileURLToPath(import.meta.url), '..', '..', '..', 'src/webhooks/master-key.ts');
  const script = `const { loadWebhookMasterKey } = await import(${JSON.stringify(module)});
    process.stdout.write(loadWebhookMasterKey(${JSON.stringify(dataDir)}, null).toString('base64'));`;
  // Without tap's NODE_OPTIONS (its process tracking), which only slows the children down.
  const { NODE_OPTIONS, ...env } = process.env;
  const run = () => promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env });
  const keys = (await Promise.all([run(), run(), run()])).map((result) => result.stdout);
  t.equal(new Set(keys).size, 1, 'one key for all');
  t.same(Buffer.from(keys[0], 'base64'), loadWebhookMasterKey(dataDir, null));
  t.same(readdirSync(dataDir), [WEBHOOK_MASTER_KEY_FILE], 'the losers removed their temporary files');
});
