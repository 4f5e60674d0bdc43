// Request logs identify requests without carrying content: no credentials, query strings, concrete
// paths or bodies, whichever way the logger is given. An unexpected error is logged with its stack.
// An authenticated request's line names its key and tenant by id (the access audit trail).
import { Writable } from 'node:stream';

import Fastify from 'fastify';
import t, { type Test } from 'tap';

import type { AppLogger } from '../../src/api/app-dependencies.js';
import { buildTestApp, CANARY, UNEXPECTED_ERROR_TEXT } from '../helpers/api-test-app.js';

const SECRET = 'secret-canary';

function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>>; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

async function exercise(t: Test, logger: AppLogger) {
  const { app, key } = await buildTestApp(t, { logger });
  const good = key({ tenant: 'tenant-logging' });
  const requests = [
    { method: 'GET' as const, url: `/v1/things/${CANARY}?q=${CANARY}`, headers: { authorization: `Bearer ${SECRET}` } },
    { method: 'GET' as const, url: `/v1/things/${CANARY}?q=${CANARY}`, headers: { ...good.auth, cookie: `session=${SECRET}` } },
    { method: 'POST' as const, url: '/v1/things', headers: { ...good.auth, 'content-type': 'application/json' }, payload: `{"name":"${CANARY}` },
    { method: 'POST' as const, url: '/v1/things', headers: good.auth, payload: { name: 'a', size: CANARY } },
    { method: 'GET' as const, url: `/v1/nowhere/${CANARY}?token=${SECRET}`, headers: { authorization: `Bearer ${SECRET}` } },
    { method: 'GET' as const, url: `/v1/boom?x=${CANARY}`, headers: good.auth },
  ];
  const statuses: number[] = [];
  for (const request of requests) statuses.push((await app.inject(request)).statusCode);
  return { statuses, goodKey: good.key, goodKeyId: good.id };
}

t.test('pino options with a destination stream: no secret, no content, one line per request', async (t) => {
  const log = capture();
  const { statuses, goodKey, goodKeyId } = await exercise(t, { level: 'info', stream: log.stream });
  t.same(statuses, [401, 200, 400, 400, 404, 500]);
  const text = log.text();
  t.notOk(text.includes(SECRET), 'the bearer secret is never logged');
  t.notOk(text.includes(goodKey), 'a valid key is never logged');
  // The unexpected error's own message is logged (that is the point of the 500 log line), but
  // nothing the request carried.
  t.notOk(text.replaceAll(UNEXPECTED_ERROR_TEXT, '').includes(CANARY), 'no path, query or body content');

  const completed = log.lines().filter((l) => l.msg === 'request completed');
  t.equal(completed.length, 6, 'one completion line per request');
  t.same(
    completed.map((l) => [l.method, l.route, l.statusCode]),
    [
      ['GET', '/v1/things/:thing_id', 401],
      ['GET', '/v1/things/:thing_id', 200],
      ['POST', '/v1/things', 400],
      ['POST', '/v1/things', 400],
      ['GET', null, 404],
      ['GET', '/v1/boom', 500],
    ],
  );
  // The key's public id and its tenant on authenticated requests; nothing where no key was accepted.
  t.same(
    completed.map((l) => [l.keyId, l.tenantId]),
    [
      [undefined, undefined],
      [goodKeyId, 'tenant-logging'],
      [goodKeyId, 'tenant-logging'],
      [goodKeyId, 'tenant-logging'],
      [undefined, undefined],
      [goodKeyId, 'tenant-logging'],
    ],
  );
  for (const line of completed) {
    t.match(line.reqId, /^req_/, 'the request id is on every line');
    t.type(line.responseTime, 'number');
    t.notOk('req' in line || 'url' in line, 'no URL');
  }
  const failure = log.lines().find((l) => l.msg === 'unexpected error');
  t.ok(failure, 'the unexpected error is logged');
  t.match((failure!.err as { stack: string }).stack, /hunter2/, 'with its stack for the operator');
});

t.test('a ready logger instance gets the same treatment', async (t) => {
  const log = capture();
  const instance = Fastify({ logger: { level: 'info', stream: log.stream } }).log;
  const { statuses, goodKey } = await exercise(t, instance);
  t.same(statuses, [401, 200, 400, 400, 404, 500]);
  const text = log.text();
  t.notOk(text.includes(SECRET));
  t.notOk(text.includes(goodKey));
  t.ok(
    log.lines().some((l) => l.msg === 'request completed'),
    'request lines are logged',
  );
});

t.test('headers logged by a route are redacted', async (t) => {
  const log = capture();
  const { app, key } = await buildTestApp(t, {
    logger: { level: 'info', stream: log.stream },
    routes: [
      async (scope) => {
        scope.get('/v1/log-headers', async (request) => {
          request.log.info({ req: { headers: request.headers }, headers: request.headers }, 'headers');
          return {};
        });
      },
    ],
  });
  const { key: secret } = key();
  await app.inject({ method: 'GET', url: '/v1/log-headers', headers: { authorization: `Bearer ${secret}`, cookie: SECRET } });
  t.notOk(log.text().includes(secret));
  t.notOk(log.text().includes(SECRET));
  t.match(log.text(), /\[redacted\]/);
});

t.test('logger: false is silent and still works', async (t) => {
  const { app, key } = await buildTestApp(t, { logger: false });
  t.equal((await app.inject({ method: 'GET', url: '/v1/things/1', headers: key().auth })).statusCode, 200);
});
