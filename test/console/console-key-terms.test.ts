// Issue 43, hole 1: a key made in the console is held to the operator's terms for the tenant, as the
// API applies them (the store's createForTenant has the contract tests on SQLite and PostgreSQL). Each
// case is the review's reproduction: an operator's pause, a key-level allowance, and a builder key
// with no entitlements revoked so that the next key would fall back to the defaults.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { recordCanary } from '../helpers/test-logs.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';
import { ConsoleClient, newMember } from './console-client.js';

const PASSWORD = 'amber-stethoscope-42';
let svc: TestService;
let audio: { data: Buffer; name: string };

t.before(async () => {
  svc = await startTestService();
  audio = { data: await readFile(await speechWav(3)), name: 'visit.wav' };
});
t.teardown(() => svc?.close());

/** Creates a key on the console's keys page; its secret, as shown once. */
async function consoleKey(client: ConsoleClient): Promise<{ key: string; id: string }> {
  const csrf = ConsoleClient.csrfOf((await client.get('/keys')).page);
  const created = await client.postFollow('/keys', { csrf });
  if (created.status !== 200) throw new Error(`POST /keys answered ${created.status}`);
  const key = /<code id="created-key">([^<]+)<\/code>/.exec(created.page)![1];
  recordCanary('api_key', key);
  return { key, id: /New key (key_\w+)/.exec(created.page)![1] };
}

async function transcribe(key: string, fields: Record<string, string> = {}) {
  const res = await postTranscription(svc.url, key, { model: 'svc-medical-1', response_format: 'json', ...fields }, audio);
  const body = (await res.json()) as { error?: { code: string; message: string } };
  return { status: res.status, code: body.error?.code ?? null, message: body.error?.message ?? '' };
}

t.test("a paused tenant's console key is paused too", async (t) => {
  const paused = await svc.createKey({ tenant: 'clinic-paused' });
  await svc.stores.keys.update(paused.id, { billingState: 'paused' });
  t.match(await transcribe(paused.key), { status: 402 }, 'the operator paused the key');
  const made = await consoleKey(await newMember(svc, 'clinic-paused', PASSWORD));
  t.match(await transcribe(made.key), { status: 402 }, 'its console-made sibling is refused as well');
  t.equal((await svc.stores.keys.get(made.id))?.billingState, 'paused');
});

t.test('a key-level allowance holds the console key to it', async (t) => {
  const limited = await svc.createKey({ tenant: 'clinic-allowance', plan: 'builder' });
  // One second of batch audio a period, where the plan includes 25 hours: a 3 s recording is refused.
  await svc.stores.billing.updateKey(limited.id, { overrides: { batchIncludedMs: 1_000 } });
  t.match(await transcribe(limited.key), { status: 402 }, 'the limited key is refused');
  const made = await consoleKey(await newMember(svc, 'clinic-allowance', PASSWORD));
  t.match(await transcribe(made.key), { status: 402 }, 'and so is the sibling made in the console');
  t.same((await svc.stores.billing.keyBilling(made.id)).overrides, { batchIncludedMs: 1_000 });
});

t.test('revoking the only key sheds no term: a builder key without entitlements stays one', async (t) => {
  const builder = await svc.createKey({ tenant: 'clinic-builder', plan: 'builder', entitlements: [], rateLimitPerMinute: 5 });
  const client = await newMember(svc, 'clinic-builder', PASSWORD);
  const csrf = ConsoleClient.csrfOf((await client.get('/keys')).page);
  t.equal((await client.postFollow(`/keys/${builder.id}/revoke`, { csrf, confirm: 'revoke' })).status, 200, 'the tenant revokes its only key');
  const made = await consoleKey(client);
  t.match(await svc.stores.keys.get(made.id), { plan: 'builder', entitlements: [], rateLimitPerMinute: 5 });
  t.match(await transcribe(made.key, { language: 'auto' }), { status: 403 }, 'language detection is still not included');
});
