// POST /v1/realtime/client_secrets on the real service: OpenAI's answer shape (also through the
// official client), the default and asked-for lifetimes on the service's clock, the body's refusals
// naming the field (422 for values, 400 for what the route does not take), and the key's standing:
// no key, a revoked key and a paused key are refused as on every route. Each secret is one audit line
// with ids, never the secret. What a secret opens is tested in test/realtime/realtime-client-secret.test.ts.
import OpenAI from 'openai';
import t, { type Test } from 'tap';

import { CLIENT_SECRET_MINTED } from '../../src/application/mint-realtime-client-secret.js';
import { OwnDocumentValidator } from '../helpers/own-document-validator.js';
import { captureLogs } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

const PATH = '/v1/realtime/client_secrets';
const SECRET = /^ek_[A-Za-z0-9_-]{43}$/;
// The service's clock, mid-second: an expiry is a whole second, counted from the second the secret was made in.
const nowMs = Date.parse('2031-05-06T07:08:09.750Z');
const nowSeconds = () => Math.floor(nowMs / 1000);

let svc: TestService;
let documented: OwnDocumentValidator;
let logs: ReturnType<typeof captureLogs>;

t.before(async () => {
  logs = captureLogs();
  svc = await startTestService({}, { clock: () => new Date(nowMs), logger: { level: 'info', stream: logs.stream } });
  documented = await OwnDocumentValidator.fetch(svc.url);
});
t.teardown(() => svc?.close());

async function mint(key: string | null, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${svc.url}${PATH}`, {
    method: 'POST',
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

/** The answer's JSON, checked against the service's own OpenAPI document. */
async function answer(t: Test, res: Response, status: number): Promise<any> {
  const body = await res.json();
  t.equal(res.status, status);
  t.match(res.headers.get('x-request-id'), /^req_/);
  t.same(documented.errors('POST', PATH, res.status, res.headers.get('content-type') ?? '', body), [], 'as documented');
  return body;
}

t.test("OpenAI's shape: value and expires_at, 60 s by default, with or without a body", async (t) => {
  for (const body of [undefined, {}, { expires_after: {} }, { expires_after: { anchor: 'created_at' } }]) {
    const secret = await answer(t, await mint(svc.key, body), 200);
    t.same(Object.keys(secret).sort(), ['expires_at', 'value']);
    t.match(secret.value, SECRET);
    t.equal(secret.expires_at, nowSeconds() + 60, `${JSON.stringify(body)}: the default lifetime`);
  }
});

t.test('a JSON content type with no body is no body: the defaults (what openai.realtime.clientSecrets.create() sends)', async (t) => {
  const res = await fetch(`${svc.url}${PATH}`, { method: 'POST', headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json' } });
  const secret = await answer(t, res, 200);
  t.match(secret.value, SECRET);
  t.equal(secret.expires_at, nowSeconds() + 60);
  const client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  // Its types ask for a body; called without one (as from JavaScript) it sends none.
  t.match((await client.realtime.clientSecrets.create(undefined as never)).value, SECRET, 'the official client, no arguments');
  const broken = await fetch(`${svc.url}${PATH}`, {
    method: 'POST',
    body: '{"expires_after":',
    headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json' },
  });
  t.equal((await answer(t, broken, 400)).error.code, 'invalid_request', 'a body that is not JSON is still 400');
  const poisoned = await fetch(`${svc.url}${PATH}`, {
    method: 'POST',
    body: '{"__proto__":{"x":1}}',
    headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json' },
  });
  t.equal(poisoned.status, 400, "with Fastify's poisoning checks");
  await poisoned.arrayBuffer();
});

t.test('expires_after.seconds from 10 to 60 sets the lifetime', async (t) => {
  for (const seconds of [10, 37, 60]) {
    const secret = await answer(t, await mint(svc.key, { expires_after: { anchor: 'created_at', seconds } }), 200);
    t.equal(secret.expires_at, nowSeconds() + seconds);
  }
  const a = await (await mint(svc.key)).json();
  const b = await (await mint(svc.key)).json();
  t.not(a.value, b.value, 'every secret is new');
});

t.test('the official openai client mints one', async (t) => {
  const client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  const secret = await client.realtime.clientSecrets.create({ expires_after: { anchor: 'created_at', seconds: 30 } });
  t.match(secret.value, SECRET);
  t.equal(secret.expires_at, nowSeconds() + 30);
});

t.test('a value the route cannot serve is 422 naming the field; what it does not take is 400; nothing is echoed', async (t) => {
  const seconds = 'expires_after.seconds must be an integer from 10 to 60';
  const shape = 'expires_after must be {"anchor":"created_at","seconds":N}, N an integer from 10 to 60';
  const cases: Array<[unknown, number, string]> = [
    [{ expires_after: { anchor: 'canary_anchor', seconds: 30 } }, 422, 'expires_after.anchor must be "created_at"'],
    [{ expires_after: { seconds: 9 } }, 422, seconds],
    [{ expires_after: { seconds: 61 } }, 422, seconds],
    [{ expires_after: { seconds: 600 } }, 422, seconds],
    [{ expires_after: { seconds: 30.5 } }, 422, seconds],
    [{ expires_after: { seconds: '30' } }, 422, seconds],
    [{ expires_after: null }, 422, shape],
    [{ expires_after: 30 }, 422, shape],
    [{ expires_after: { seconds: 30, canary_field: 1 } }, 422, shape],
    [{ session: { type: 'transcription' } }, 422, 'session is not taken here: a realtime session is configured by its start message (REALTIME.md)'],
    [{ extra_field: 'canary' }, 400, 'the request has a field "extra_field" that is not one of: expires_after'],
    [[{ expires_after: { seconds: 30 } }], 400, 'the request body must be a JSON object'],
    ['"canary"', 400, 'the request body must be a JSON object'],
    ['{"canary', 400, 'the request body is not valid JSON'],
  ];
  for (const [body, status, message] of cases) {
    const res = await mint(svc.key, body);
    const refused = await answer(t, res, status);
    t.same(refused, { error: { code: 'invalid_request', message } }, JSON.stringify(body));
    t.notMatch(JSON.stringify(refused), /canary/);
  }
});

t.test('no key, an unknown key and a revoked key get 401; a paused key gets 402; none gets a secret', async (t) => {
  for (const key of [null, 'svc_canary_canary']) {
    const refused = await answer(t, await mint(key), 401);
    t.equal(refused.error.code, 'unauthorized');
  }
  const revoked = await svc.createKey({ tenant: 'cs-revoked' });
  t.equal((await mint(revoked.key)).status, 200, 'minted while active');
  await svc.stores.keys.revoke(revoked.id);
  t.equal((await answer(t, await mint(revoked.key), 401)).error.code, 'unauthorized');
  const paused = await svc.createKey({ tenant: 'cs-paused' });
  await svc.updateKey(paused.id, { billingState: 'paused' });
  t.equal((await answer(t, await mint(paused.key), 402)).error.code, 'billing_blocked', 'as its realtime start would be');
});

t.test('realtime needs no entitlement (every plan streams): a key with none mints', async (t) => {
  const bare = await svc.createKey({ tenant: 'cs-no-entitlements', entitlements: [] });
  t.match((await answer(t, await mint(bare.key), 200)).value, SECRET);
});

t.test('each secret is one audit line with the key and tenant ids and the expiry, never the secret', async (t) => {
  const key = await svc.createKey({ tenant: 'cs-audit' });
  const secret = await (await mint(key.key, { expires_after: { seconds: 20 } })).json();
  const lines = logs.lines().filter((line) => line.audit === CLIENT_SECRET_MINTED && line.keyId === key.id);
  t.same(
    lines.map(({ audit, keyId, tenantId, expiresAt }) => ({ audit, keyId, tenantId, expiresAt })),
    [{ audit: CLIENT_SECRET_MINTED, keyId: key.id, tenantId: key.tenant, expiresAt: secret.expires_at }],
  );
  t.notOk(logs.text().includes(secret.value.slice(3)), 'no secret in the log');
  t.notOk(logs.text().includes(key.key.slice(-43)), 'no key in the log');
});
