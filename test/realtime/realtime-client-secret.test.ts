// Realtime sessions opened with a client secret (REALTIME.md "Client secrets") on the real service
// (micro model, the test store pair, the service's clock injected): a secret minted by
// POST /v1/realtime/client_secrets and sent as `client_secret` in `start` opens a session that runs
// as the key's (transcribed as the key's own session is; the key's metering, audit line, tenant's
// seats and entitlements; cut off when the key is revoked); it opens one session only, even when two
// starts race with it; expired, or whose key was revoked or paused since, it opens none; and a start
// carrying both credentials, or a malformed one, is refused without using the secret up.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { billingPeriodAt } from '../../src/billing/billing-period.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { connectRealtime, type RealtimeClient, startMessage, wavPcm } from '../helpers/realtime-client.js';
import { UWS_SKIP } from '../helpers/realtime-transports.js';
import { captureLogs } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

type Key = { key: string; id: string; tenant: string };

let svc: TestService;
let speech: Uint8Array;
let logs: ReturnType<typeof captureLogs>;
/** How far the service's clock runs ahead of the wall clock: a test moves it to expire secrets. */
let aheadMs = 0;

t.before(async () => {
  logs = captureLogs();
  svc = await startTestService({}, { clock: () => new Date(Date.now() + aheadMs), logger: { level: 'info', stream: logs.stream } });
  speech = wavPcm(await readFile(await speechWav(8)));
});
t.teardown(() => svc?.close());

/** A secret minted by the key through the API (of `base`: this file's service by default). */
async function mintSecret(key: string, seconds = 60, base = svc.url): Promise<string> {
  const res = await fetch(`${base}/v1/realtime/client_secrets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ expires_after: { anchor: 'created_at', seconds } }),
  });
  if (res.status !== 200) throw new Error(`minting answered ${res.status}`);
  return ((await res.json()) as { value: string }).value;
}

/** A start carrying the secret instead of the key. */
function secretStart(secret: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const { api_key: _key, ...start } = startMessage('', fields);
  return { ...start, client_secret: secret };
}

async function connect(): Promise<RealtimeClient> {
  return connectRealtime(svc.service.realtime!.url);
}

async function started(url: string, start: Record<string, unknown>): Promise<RealtimeClient> {
  const client = await connectRealtime(url);
  client.start(start);
  return client;
}

async function waitFor(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await done()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** A whole session: the speech four times faster than real time, a second of silence, stop; its final record. */
async function transcribe(client: RealtimeClient): Promise<Record<string, unknown>> {
  await client.next('ready');
  await client.stream(speech, { pace: 4 });
  await client.stream(new Uint8Array(32_000), { pace: 4 });
  client.stop();
  const closed = await client.closed;
  if (closed.code !== 1000) throw new Error(`the session closed ${closed.code} ${closed.reason}`);
  return client.events.find((e) => e.type === 'final')!;
}

/** A start refused before ready: its close and its one error event. */
async function refused(client: RealtimeClient): Promise<{ code: number; reason: string; events: string[] }> {
  const close = await client.closed;
  return { ...close, events: client.events.map((e) => `${e.type}:${String(e.code)}`) };
}

const UNAUTHORIZED = { code: 4401, reason: 'UNAUTHORIZED', events: ['error:unauthorized'] };

async function realtimeSeconds(key: Key): Promise<number> {
  const period = billingPeriodAt(Date.now() + aheadMs, await svc.stores.billing.periodStartDay()).label;
  return (await svc.stores.usage.standing(key.tenant, key.id, period)).tenantUsedMs.realtime / 1000;
}

function sessionLines(keyId: string): Record<string, unknown>[] {
  return logs.lines().filter((l) => l.msg === 'realtime session ended' && l.keyId === keyId);
}

for (const transport of ['uws', 'ws'] as const) {
  t.test(`transport ${transport}: a secret opens a session that runs as the key's`, { skip: transport === 'uws' && UWS_SKIP }, async (t) => {
    const local = transport === 'ws' ? null : await startTestService({ SVC_REALTIME_TRANSPORT: 'uws' });
    t.teardown(() => local?.close());
    const url = (local ?? svc).service.realtime!.url;
    const key: Key = local ? await local.createKey({ tenant: 'cs-uws' }) : await svc.createKey({ tenant: `cs-flow-${transport}`, plan: 'payg' });

    const byKey = await transcribe(await started(url, startMessage(key.key)));
    const client = await started(url, secretStart(await mintSecret(key.key, 60, (local ?? svc).url)));
    const ready = await client.next('ready');
    t.match(ready, { type: 'ready', event_schema: 'svc-agent-v1', language: 'en', model: 'svc-medical-1', transport });
    const bySecret = await transcribe(client);
    // Where turns end depends on when each analysis ran, so the two texts may be cut differently.
    t.ok((bySecret.turns as unknown[]).length >= 1 && bySecret.text !== '', "turns were transcribed, as in the key's own session");
    t.ok((byKey.turns as unknown[]).length >= 1 && byKey.text !== '');
    t.equal(bySecret.audio_seconds, byKey.audio_seconds);
    if (local) return;
    await waitFor(async () => (await realtimeSeconds(key)) === (byKey.audio_seconds as number) * 2);
    t.equal(await realtimeSeconds(key), (byKey.audio_seconds as number) * 2, "metered to the key's tenant, as the key's session was");
    await waitFor(async () => sessionLines(key.id).length === 2);
    t.match(
      sessionLines(key.id),
      [
        { keyId: key.id, tenantId: key.tenant, credential: 'api_key', closeCode: 1000, billing: 'metered' },
        { keyId: key.id, tenantId: key.tenant, credential: 'client_secret', closeCode: 1000, billing: 'metered' },
      ],
      'the audit line names the key and tenant, and says a client secret opened it',
    );
  });
}

t.test('a secret opens one session: used again it is refused 4401, and of two starts racing with it one is ready', async (t) => {
  const key = await svc.createKey({ tenant: 'cs-once', plan: 'payg' });
  const secret = await mintSecret(key.key);
  const first = await connect();
  first.start(secretStart(secret));
  await first.next('ready');
  const again = await connect();
  again.start(secretStart(secret));
  t.same(await refused(again), UNAUTHORIZED, 'the second use');
  t.notMatch(JSON.stringify(again.events), secret.slice(3), 'the secret is not echoed');
  first.stop();
  t.same(await first.closed, { code: 1000, reason: 'FINAL' });

  const raced = await mintSecret(key.key);
  const racers = await Promise.all([connect(), connect(), connect(), connect()]);
  for (const racer of racers) racer.start(secretStart(raced));
  const outcomes = await Promise.all(
    racers.map((racer) =>
      racer.next('ready').then(
        () => 'ready',
        () => 'refused',
      ),
    ),
  );
  t.same(outcomes.filter((o) => o === 'ready').length, 1, 'one racer is ready');
  for (const [i, racer] of racers.entries()) {
    if (outcomes[i] === 'ready') racer.stop();
    else t.same(await refused(racer), UNAUTHORIZED);
  }
});

t.test('an expired secret, and one whose key was revoked or paused since, opens nothing', async (t) => {
  const key = await svc.createKey({ tenant: 'cs-expired', plan: 'payg' });
  const secret = await mintSecret(key.key, 10);
  aheadMs += 10_000;
  t.teardown(() => (aheadMs = 0));
  const late = await connect();
  late.start(secretStart(secret));
  t.same(await refused(late), UNAUTHORIZED, '10 s later on the service clock');
  aheadMs = 0;

  const revoked = await svc.createKey({ tenant: 'cs-revoked', plan: 'payg' });
  const ofRevoked = await mintSecret(revoked.key);
  await svc.stores.keys.revoke(revoked.id);
  const afterRevoke = await connect();
  afterRevoke.start(secretStart(ofRevoked));
  t.same(await refused(afterRevoke), UNAUTHORIZED, 'its key revoked after minting');

  const paused = await svc.createKey({ tenant: 'cs-paused', plan: 'payg' });
  const ofPaused = await mintSecret(paused.key);
  await svc.updateKey(paused.id, { billingState: 'paused' });
  const afterPause = await connect();
  afterPause.start(secretStart(ofPaused));
  t.same(await refused(afterPause), { code: 4402, reason: 'BILLING_BLOCKED', events: ['error:billing_blocked'] }, 'its key paused after minting');
  await waitFor(async () => sessionLines(paused.id).length === 1);
  t.match(sessionLines(paused.id), [{ keyId: paused.id, credential: 'client_secret', closeCode: 4402, billing: 'refused' }]);
});

t.test("a secret's session has the key's entitlements: patterns only where the key has them", async (t) => {
  // Realtime itself needs no entitlement (every plan streams, per the contract): a key with none mints and streams.
  const plain = await svc.createKey({ tenant: 'cs-entitlements', plan: 'payg', entitlements: [] });
  const refusedPatterns = await connect();
  refusedPatterns.start(secretStart(await mintSecret(plain.key), { patterns: ['BP \\d+/\\d+'] }));
  t.same(await refused(refusedPatterns), { code: 4403, reason: 'ENTITLEMENT_DENIED', events: ['error:entitlement_denied'] });
  const bare = await connect();
  bare.start(secretStart(await mintSecret(plain.key)));
  await bare.next('ready');
  bare.stop();
  t.same(await bare.closed, { code: 1000, reason: 'FINAL' });
  const entitled = await svc.createKey({ tenant: 'cs-entitlements', plan: 'payg', entitlements: ['patterns'] });
  const withPatterns = await connect();
  withPatterns.start(secretStart(await mintSecret(entitled.key), { patterns: ['BP \\d+/\\d+'] }));
  await withPatterns.next('ready');
  withPatterns.stop();
  t.same(await withPatterns.closed, { code: 1000, reason: 'FINAL' });
});

t.test('a start with both credentials, or a malformed one, is refused 4400 and leaves the secret unused', async (t) => {
  const key = await svc.createKey({ tenant: 'cs-malformed', plan: 'payg' });
  const secret = await mintSecret(key.key);
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['both', { ...secretStart(secret), api_key: key.key }, 'send api_key or client_secret, not both'],
    ['empty secret', secretStart(''), 'client_secret must be a non-empty string'],
    ['secret not a string', { ...secretStart(secret), client_secret: 42 }, 'client_secret must be a non-empty string'],
    ['neither', startMessage('', { api_key: undefined }), 'api_key (or client_secret) is required'],
    ['a bad field beside a good secret', secretStart(secret, { language: 'canary' }), 'language must be one of en, es, pt, fr, de, nl, ar, hi'],
  ];
  for (const [name, start, message] of cases) {
    const client = await connect();
    client.start(start);
    t.same(await client.closed, { code: 4400, reason: 'INVALID_START' }, name);
    t.match(client.events, [{ type: 'error', code: 'invalid_request', message }], name);
  }
  const client = await connect();
  client.start(secretStart(secret));
  await client.next('ready');
  client.stop();
  t.same(await client.closed, { code: 1000, reason: 'FINAL' }, 'the secret still opens its session');
  const wrong = await connect();
  wrong.start(secretStart(`ek_${'A'.repeat(43)}`));
  t.same(await refused(wrong), UNAUTHORIZED, 'a secret never minted');
});

t.test("a secret's session takes the key's tenant's seats, and is cut off when the key is revoked", async (t) => {
  const key = await svc.createKey({ tenant: 'cs-seats', plan: 'builder' });
  const [a, b] = await Promise.all([connect(), connect()]);
  a.start(startMessage(key.key));
  b.start(secretStart(await mintSecret(key.key)));
  await Promise.all([a.next('ready'), b.next('ready')]);
  const third = await connect();
  third.start(secretStart(await mintSecret(key.key)));
  t.same(await refused(third), { code: 1013, reason: 'TOO_MANY_STREAMS', events: ['error:rate_limited'] }, "the builder plan's two seats are the tenant's");
  a.stop();
  await a.closed;

  const streaming = b.stream(speech, { pace: 2, frameMs: 50 });
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await svc.stores.keys.revoke(key.id);
  t.same(await b.closed, { code: 4401, reason: 'UNAUTHORIZED' }, "the key's revocation closes the secret's session");
  await streaming;
  t.same(
    b.events.slice(b.events.findIndex((e) => e.type === 'final')).map((e) => e.type),
    ['final', 'error'],
    'final for the turns transcribed, then the error',
  );
});
