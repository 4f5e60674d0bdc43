// Bearer authentication on every non-public route, the entitlement and billing checks, and the
// throttle on failed authentications per client address.
import t from 'tap';

import { bearerToken } from '../../src/api/authenticate.js';
import { assertEnvelope, buildTestApp, CANARY } from '../helpers/api-test-app.js';

t.test('401 unauthorized with WWW-Authenticate for missing, malformed, unknown and revoked keys', async (t) => {
  const { app, key, keys } = await buildTestApp(t);
  const revoked = key();
  await keys.revoke(revoked.id);
  const valid = key();
  const cases: Record<string, Record<string, string>> = {
    missing: {},
    empty: { authorization: '' },
    'scheme only': { authorization: 'Bearer' },
    'wrong scheme': { authorization: `Basic ${Buffer.from(`user:${valid.key}`).toString('base64')}` },
    'key without scheme': { authorization: valid.key },
    'unknown key': { authorization: `Bearer ${CANARY}` },
    'two tokens': { authorization: `Bearer ${valid.key} ${CANARY}` },
    'revoked key': revoked.auth,
    'overlong token': { authorization: `Bearer ${'x'.repeat(4096)}${CANARY}` },
  };
  for (const [name, headers] of Object.entries(cases)) {
    const res = await app.inject({ method: 'GET', url: '/v1/things/1', headers });
    t.test(name, async (t) => {
      assertEnvelope(t, res, 401, 'unauthorized');
      t.equal(res.headers['www-authenticate'], 'Bearer');
    });
  }
  const ok = await app.inject({ method: 'GET', url: '/v1/things/1', headers: valid.auth });
  t.equal(ok.statusCode, 200);
  t.same(ok.json(), { ok: true, key: valid.id }, 'the key is on request.apiKey');
});

t.test('the scheme is case-insensitive and surrounding spaces are tolerated', async (t) => {
  const { app, key } = await buildTestApp(t);
  const { key: secret } = key();
  for (const authorization of [`bearer ${secret}`, `BEARER ${secret}`, `Bearer   ${secret} `]) {
    const res = await app.inject({ method: 'GET', url: '/v1/things/1', headers: { authorization } });
    t.equal(res.statusCode, 200, JSON.stringify(authorization.slice(0, 9)));
  }
});

t.test('authentication runs before the body is parsed', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject({ method: 'POST', url: '/v1/things', headers: { 'content-type': 'application/json' }, payload: `{${CANARY}` });
  assertEnvelope(t, res, 401, 'unauthorized');
});

t.test('public routes need no key and get none', async (t) => {
  const { app, key } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/v1/public-probe', headers: { authorization: `Bearer ${CANARY}` } });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { public: true, key: null });
  const withKey = await app.inject({ method: 'GET', url: '/v1/public-probe', headers: key().auth });
  t.same(withKey.json(), { public: true, key: null }, 'a public route does not authenticate even a valid key');
});

t.test('requireEntitlement: 403 entitlement_denied without it, passes with it', async (t) => {
  const { app, key } = await buildTestApp(t);
  const denied = await app.inject({ method: 'POST', url: '/v1/patterns-only', headers: key().auth });
  assertEnvelope(t, denied, 403, 'entitlement_denied');
  t.match(denied.json().error.message, /patterns/);
  const allowed = await app.inject({ method: 'POST', url: '/v1/patterns-only', headers: key({ entitlements: ['patterns'] }).auth });
  t.equal(allowed.statusCode, 200);
});

t.test('a billing block is 402 billing_blocked in the envelope; reads keep working', async (t) => {
  const { app, key, keys } = await buildTestApp(t);
  const paused = key();
  await keys.update(paused.id, { billingState: 'paused' });
  const blocked = await app.inject({ method: 'POST', url: '/v1/new-work', headers: paused.auth });
  assertEnvelope(t, blocked, 402, 'billing_blocked');
  t.match(blocked.json().error.message, /paused.*result retrieval keeps working/);
  t.equal((await app.inject({ method: 'GET', url: '/v1/things/1', headers: paused.auth })).statusCode, 200, 'retrieval is not blocked');
  t.equal((await app.inject({ method: 'POST', url: '/v1/new-work', headers: key().auth })).statusCode, 200);
});

t.test('failed authentications are throttled per address, then recover', async (t) => {
  const { app, key, clock } = await buildTestApp(t, { failedAuthPerMinute: 3 });
  const good = key();
  const bad = { authorization: `Bearer ${CANARY}` };
  for (let i = 0; i < 3; i++) {
    assertEnvelope(t, await app.inject({ method: 'GET', url: '/v1/things/1', headers: bad }), 401, 'unauthorized');
  }
  const limited = await app.inject({ method: 'GET', url: '/v1/things/1', headers: bad });
  assertEnvelope(t, limited, 429, 'rate_limited');
  t.equal(limited.headers['retry-after'], '20', 'one failure refills in 60/3 seconds');
  // The address has spent its budget: even a valid key waits (the key is not looked up meanwhile).
  assertEnvelope(t, await app.inject({ method: 'GET', url: '/v1/things/1', headers: good.auth }), 429, 'rate_limited');
  // Another address is unaffected.
  const other = await app.inject({ method: 'GET', url: '/v1/things/1', headers: good.auth, remoteAddress: '10.0.0.2' });
  t.equal(other.statusCode, 200);

  clock.advance(20);
  t.equal((await app.inject({ method: 'GET', url: '/v1/things/1', headers: good.auth })).statusCode, 200, 'recovers');
  // Successes do not spend the failure budget.
  for (let i = 0; i < 5; i++) t.equal((await app.inject({ method: 'GET', url: '/v1/things/1', headers: good.auth })).statusCode, 200);
});

t.test('bearerToken', async (t) => {
  t.equal(bearerToken('Bearer abc'), 'abc');
  t.equal(bearerToken('bearer\tabc'), 'abc');
  t.equal(bearerToken(undefined), null);
  t.equal(bearerToken('Bearer'), null);
  t.equal(bearerToken('Bearer '), null);
  t.equal(bearerToken('Bearerabc'), null);
  t.equal(bearerToken('Token abc'), null);
  t.equal(bearerToken('Bearer a b'), null);
  t.equal(bearerToken(`Bearer ${'a'.repeat(513)}`), null);
});
