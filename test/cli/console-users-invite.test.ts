// `svc-stt console-users invite` to a tenant that has no key (a typo, or the README's `clinic-a`
// while the first key lives in `ten_...`) still invites, but says so on stderr, naming the tenants
// that have keys; stdout stays the link (and with --json exactly {"link","expires_at"}).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import t from 'tap';

import { CLI_ARGS } from '../helpers/serve-process.js';

const exec = promisify(execFile);

t.test('an invite to a tenant without keys names the tenants that have them', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-invite-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_DATA_DIR: dataDir };
  delete env.SVC_CONFIG;
  const cli = (...args: string[]) => exec(process.execPath, [...CLI_ARGS, ...args], { env, timeout: 60_000 });

  const { stdout: keyJson } = await cli('keys', 'create', '--json');
  const firstTenant = (JSON.parse(keyJson) as { tenant: string }).tenant;
  t.match(firstTenant, /^ten_/);

  const missed = await cli('console-users', 'invite', '--tenant', 'clinic-a', '--email', 'dr.lee@clinic.example');
  t.match(missed.stdout, /^Invited dr\.lee@clinic\.example to the console of clinic-a\./, 'still invited');
  t.match(missed.stderr, `svc-stt: note: tenant clinic-a has no API key yet, so this console starts empty; the tenants with keys are ${firstTenant}`);
  t.match(missed.stderr, /svc-stt keys create --tenant clinic-a/);

  const json = await cli('console-users', 'invite', '--tenant', 'clinic-b', '--email', 'b@clinic.example', '--json');
  t.same(Object.keys(JSON.parse(json.stdout) as object).sort(), ['expires_at', 'link'], '--json output unchanged');
  t.match(json.stderr, /tenant clinic-b has no API key yet/);

  const right = await cli('console-users', 'invite', '--tenant', firstTenant, '--email', 'ops@clinic.example');
  t.match(right.stdout, /^Invited ops@clinic\.example/);
  t.equal(right.stderr, '', 'no note for a tenant with keys');
});
