// Per-key token buckets: the burst, the 429 with Retry-After, recovery as the clock advances, the
// key's own rate, and what is not counted.
import t from 'tap';

import { TokenBuckets } from '../../src/api/token-bucket.js';
import { assertEnvelope, buildTestApp, testConfig } from '../helpers/api-test-app.js';

t.test('TokenBuckets: burst to capacity, continuous refill, Retry-After to the next token', async (t) => {
  let now = 0;
  const buckets = new TokenBuckets(() => now);
  for (let i = 0; i < 60; i++) t.equal(buckets.take('a', 60).allowed, true);
  t.same(buckets.take('a', 60), { allowed: false, retryAfterSeconds: 1 });
  now += 500;
  t.same(buckets.take('a', 60), { allowed: false, retryAfterSeconds: 1 }, 'half a token: still at least 1 s');
  now += 500;
  t.same(buckets.take('a', 60), { allowed: true, remaining: 0 });
  t.equal(buckets.take('b', 60).allowed, true, 'buckets are independent');

  t.same(buckets.take('slow', 1), { allowed: true, remaining: 0 });
  t.same(buckets.take('slow', 1), { allowed: false, retryAfterSeconds: 60 });
  now += 59_000;
  t.same(buckets.take('slow', 1), { allowed: false, retryAfterSeconds: 1 });
  now += 1_000;
  t.equal(buckets.take('slow', 1).allowed, true);

  t.same(buckets.peek('p', 1), { allowed: true, remaining: 1 }, 'peek takes nothing');
  t.same(buckets.peek('p', 1), { allowed: true, remaining: 1 });
  t.same(buckets.take('zero', 0), { allowed: false, retryAfterSeconds: 60 }, 'a zero rate allows nothing');
});

t.test('TokenBuckets: a clock stepping back credits nothing twice; a lower rate applies at once', async (t) => {
  let now = 100_000;
  const buckets = new TokenBuckets(() => now);
  buckets.take('a', 2);
  buckets.take('a', 2);
  now -= 50_000;
  t.equal(buckets.take('a', 2).allowed, false);
  now += 50_000;
  t.equal(buckets.take('a', 2).allowed, false, 'time before the step is not refunded');
  now += 30_000;
  t.equal(buckets.take('a', 2).allowed, true);

  for (let i = 0; i < 10; i++) buckets.take('b', 100);
  t.same(buckets.take('b', 5), { allowed: true, remaining: 4 }, 'tokens are capped at the new capacity');
});

t.test('TokenBuckets: refilled buckets are forgotten', async (t) => {
  let now = 0;
  const buckets = new TokenBuckets(() => now, 10);
  for (let i = 0; i < 9; i++) buckets.take(`client-${i}`, 60);
  t.equal(buckets.size, 9);
  now += 60_000;
  buckets.take('late', 60);
  t.equal(buckets.size, 1, 'a full bucket equals no bucket: only the newest is held');
});

t.test('per-key limit: 429 rate_limited with Retry-After, recovery when the clock advances', async (t) => {
  const { app, key, clock } = await buildTestApp(t, { config: testConfig({ rateLimitPerMinute: 3 }) });
  const a = key();
  const b = key();
  const get = (auth: { authorization: string }) => app.inject({ method: 'GET', url: '/v1/things/1', headers: auth });
  for (let i = 0; i < 3; i++) t.equal((await get(a.auth)).statusCode, 200);
  const limited = await get(a.auth);
  assertEnvelope(t, limited, 429, 'rate_limited');
  t.equal(limited.headers['retry-after'], '20');
  t.equal((await get(b.auth)).statusCode, 200, 'other keys are unaffected');

  clock.advance(19);
  assertEnvelope(t, await get(a.auth), 429, 'rate_limited');
  clock.advance(1);
  t.equal((await get(a.auth)).statusCode, 200, 'one token back after 20 s');
  assertEnvelope(t, await get(a.auth), 429, 'rate_limited');
  clock.advance(60);
  for (let i = 0; i < 3; i++) t.equal((await get(a.auth)).statusCode, 200, 'a full minute refills the burst');
});

t.test("a key's own rate overrides the server default", async (t) => {
  const { app, key } = await buildTestApp(t, { config: testConfig({ rateLimitPerMinute: 1000 }) });
  const slow = key({ rateLimitPerMinute: 2 });
  const get = () => app.inject({ method: 'GET', url: '/v1/things/1', headers: slow.auth });
  t.equal((await get()).statusCode, 200);
  t.equal((await get()).statusCode, 200);
  const limited = await get();
  assertEnvelope(t, limited, 429, 'rate_limited');
  t.equal(limited.headers['retry-after'], '30');
});

t.test('not counted: public routes, unknown paths, unauthenticated requests', async (t) => {
  const { app, key } = await buildTestApp(t, { config: testConfig({ rateLimitPerMinute: 1 }), failedAuthPerMinute: 1000 });
  const k = key();
  for (let i = 0; i < 5; i++) {
    t.equal((await app.inject({ method: 'GET', url: '/v1/openapi.json', headers: k.auth })).statusCode, 200);
    t.equal((await app.inject({ method: 'GET', url: '/v1/nowhere', headers: k.auth })).statusCode, 404);
    t.equal((await app.inject({ method: 'GET', url: '/v1/things/1' })).statusCode, 401);
  }
  t.equal((await app.inject({ method: 'GET', url: '/v1/things/1', headers: k.auth })).statusCode, 200, 'the key still has its token');
  t.equal((await app.inject({ method: 'GET', url: '/v1/things/1', headers: k.auth })).statusCode, 429);
});
