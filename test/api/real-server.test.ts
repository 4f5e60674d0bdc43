// The frame on a real listening socket: fetch sees the same envelopes and headers as inject, and the
// connection-level paths (malformed HTTP, requests arriving while the server closes) answer with the
// envelope too.
import { connect } from 'node:net';

import t, { type Test } from 'tap';

import { buildApp } from '../../src/api/build-app.js';
import { CANARY, probeRoutes, testConfig } from '../helpers/api-test-app.js';
import { FakeKeyStore } from '../helpers/fake-key-store.js';

async function listen(t: Test, routes = [probeRoutes]) {
  const keys = new FakeKeyStore();
  const app = buildApp({ config: testConfig(), keys, logger: false, routes });
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, keys, port, base: `http://127.0.0.1:${port}` };
}

async function expectEnvelope(t: Test, res: Response, status: number, code: string): Promise<void> {
  t.equal(res.status, status, `status ${status}`);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.match(res.headers.get('x-request-id'), /^req_[0-9A-Za-z]{20}$/, 'x-request-id');
  const text = await res.text();
  t.notOk(text.includes(CANARY), 'no echo');
  const body = JSON.parse(text);
  t.same(Object.keys(body), ['error']);
  t.same(Object.keys(body.error).sort(), ['code', 'message']);
  t.equal(body.error.code, code);
}

/** Writes raw bytes on one connection and returns everything the server sent back. */
function rawExchange(port: number, data: string, afterWrite?: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(data, () => afterWrite?.());
  });
}

t.test('fetch: success, 401, 404, 405, 415, 500 and the public document', async (t) => {
  const { keys, base } = await listen(t);
  const { key } = await keys.create();
  const auth = { authorization: `Bearer ${key}` };

  const ok = await fetch(`${base}/v1/things/1`, { headers: auth });
  t.equal(ok.status, 200);
  t.match(ok.headers.get('x-request-id'), /^req_/);
  t.same(await ok.json(), { ok: true, key: 'key1' });

  const unauthorized = await fetch(`${base}/v1/things/1`, { headers: { authorization: `Bearer ${CANARY}` } });
  t.equal(unauthorized.headers.get('www-authenticate'), 'Bearer');
  await expectEnvelope(t, unauthorized, 401, 'unauthorized');
  await expectEnvelope(t, await fetch(`${base}/v1/${CANARY}`, { headers: auth }), 404, 'not_found');
  const wrongMethod = await fetch(`${base}/v1/things/1`, { method: 'PUT', headers: auth });
  t.equal(wrongMethod.headers.get('allow'), 'DELETE, GET, HEAD');
  await expectEnvelope(t, wrongMethod, 405, 'method_not_allowed');
  await expectEnvelope(
    t,
    await fetch(`${base}/v1/things`, { method: 'POST', headers: { ...auth, 'content-type': 'application/x-canary' }, body: CANARY }),
    415,
    'unsupported_media_type',
  );
  await expectEnvelope(t, await fetch(`${base}/v1/boom`, { headers: auth }), 500, 'internal_error');

  const doc = await fetch(`${base}/v1/openapi.json`);
  t.equal(doc.status, 200);
  t.equal((await doc.json()).openapi, '3.1.0');
});

t.test('malformed HTTP: the envelope, written on the socket', async (t) => {
  const { port } = await listen(t);
  const answer = await rawExchange(port, `GET /v1/things/1 HTTP/1.1\r\nHost: x\r\nBad Header ${CANARY}\r\n\r\n`);
  t.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
  t.match(answer, /\r\nx-request-id: req_[0-9A-Za-z]{20}\r\n/);
  t.notOk(answer.includes(CANARY));
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
  t.same(body, { error: { code: 'invalid_request', message: 'the request is not valid HTTP' } });
});

t.test('requests arriving while the server closes: 503 service_unavailable with Retry-After', async (t) => {
  let release: () => void = () => {};
  let entered: () => void = () => {};
  const inFlight = new Promise<void>((resolve) => (entered = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  const { app, keys, port } = await listen(t, [
    async (scope) => {
      scope.get('/v1/slow', { config: { public: true } }, async () => {
        entered();
        await gate;
        return { slow: true };
      });
    },
  ]);
  const { key } = await keys.create();
  // One keep-alive connection: a request is in flight when the server starts closing, and a second
  // one arrives on the same connection afterwards (as from a client or proxy reusing it).
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write('GET /v1/slow HTTP/1.1\r\nHost: x\r\n\r\n');
  await inFlight;
  const closing = app.close();
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.write(`GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  release();
  await ended;
  await closing;

  const responses = received.split(/(?=HTTP\/1\.1 )/);
  t.equal(responses.length, 2, 'both requests answered');
  t.match(responses[0], /^HTTP\/1\.1 200 /, 'the request in flight completes');
  const draining = responses[1] ?? '';
  t.match(draining, /^HTTP\/1\.1 503 /);
  t.match(draining, /\r\nretry-after: 5\r\n/i);
  t.match(draining, /\r\nx-request-id: req_/i);
  t.match(draining, /\r\nconnection: close\r\n/i, 'the connection is closed after the answer');
  t.same(JSON.parse(draining.slice(draining.indexOf('\r\n\r\n') + 4)).error.code, 'service_unavailable');
});
