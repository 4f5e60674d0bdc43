// One delivery attempt against a real HTTPS receiver on loopback: outcomes per status, redirects never
// followed, a deadline for a receiver that never answers, connection and certificate failures, and
// the request arriving byte for byte. The connection goes to the address in the destination: the
// names used here (hooks.test, other.test) exist in no DNS, so any lookup would fail the attempt.
import { createServer } from 'node:net';

import t from 'tap';

import { postWebhook } from '../../src/webhooks/post-webhook.js';
import type { ValidatedDestination } from '../../src/webhooks/validate-destination.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const TIMEOUT_MS = 10_000;

const receiver = await startWebhookReceiver();
t.teardown(() => receiver.close());

function destination(target: WebhookReceiver | number, path = '/hooks/stt', hostname = 'hooks.test'): ValidatedDestination {
  const port = typeof target === 'number' ? target : target.port;
  return { url: new URL(`https://${hostname}:${port}${path}`), hostname, address: '127.0.0.1', family: 4, port };
}

const headers = {
  'content-type': 'application/json',
  'user-agent': 'svc-stt-webhooks/1',
  'webhook-id': 'evt_0123456789abcdef',
  'webhook-timestamp': '1924992000',
  'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
};

t.beforeEach(() => {
  receiver.requests.length = 0;
  receiver.answer({ status: 204 });
});

t.test('a 2xx is delivered, and the request arrives byte for byte at the pinned address', async (t) => {
  // Not valid UTF-8 on purpose: the body must travel as raw bytes.
  const body = Buffer.concat([Buffer.from('{"id":"evt_1","text":"caf\u00e9 \u{1F9EA}"}'), Buffer.from([0xff, 0x00, 0xfe])]);
  const outcome = await postWebhook(destination(receiver, '/hooks/stt?tenant=a&x=%2F'), headers, body, TIMEOUT_MS);
  t.same(outcome, { delivered: true, status: 204, summary: 'http 204' });

  t.equal(receiver.requests.length, 1);
  const [request] = receiver.requests;
  t.equal(request.method, 'POST');
  t.equal(request.path, '/hooks/stt?tenant=a&x=%2F');
  t.ok(request.body.equals(body), 'the body is identical');
  for (const [name, value] of Object.entries(headers)) t.equal(request.headers[name], value, `header ${name}`);
  t.equal(request.headers['content-length'], String(body.length));
  t.equal(request.headers.host, `hooks.test:${receiver.port}`, 'Host names the host, not the address');
  t.equal(request.servername, 'hooks.test', 'SNI names the host');

  receiver.answer({ status: 200, body: 'thanks' });
  t.same(await postWebhook(destination(receiver), headers, body, TIMEOUT_MS), { delivered: true, status: 200, summary: 'http 200' });
});

t.test('a non-2xx answer is not delivered', async (t) => {
  receiver.answer({ status: 500, body: 'internal secret detail' });
  const outcome = await postWebhook(destination(receiver), headers, Buffer.from('{}'), TIMEOUT_MS);
  t.same(outcome, { delivered: false, status: 500, summary: 'http 500' });
  t.notOk(outcome.summary.includes('secret'), 'nothing of the response body is kept');

  receiver.answer({ status: 410 });
  t.same(await postWebhook(destination(receiver), headers, Buffer.from('{}'), TIMEOUT_MS), { delivered: false, status: 410, summary: 'http 410' });
});

t.test('a redirect is reported and not followed', async (t) => {
  receiver.answer((request) => (request.path === '/hooks/stt' ? { redirect: `${receiver.origin}/elsewhere`, status: 302 } : { status: 204 }));
  const outcome = await postWebhook(destination(receiver), headers, Buffer.from('{}'), TIMEOUT_MS);
  t.same(outcome, { delivered: false, status: 302, summary: 'redirect 302 not followed' });
  t.same(
    receiver.requests.map((request) => request.path),
    ['/hooks/stt'],
    'one request only',
  );

  receiver.answer({ redirect: `${receiver.origin}/elsewhere`, status: 307 });
  t.same(await postWebhook(destination(receiver), headers, Buffer.from('{}'), TIMEOUT_MS), {
    delivered: false,
    status: 307,
    summary: 'redirect 307 not followed',
  });
  t.equal(receiver.requests.length, 2);
});

t.test('a receiver that never answers ends in a timeout outcome', async (t) => {
  receiver.answer({ never: true });
  const outcome = await postWebhook(destination(receiver), headers, Buffer.from('{}'), 500);
  t.same(outcome, { delivered: false, status: null, summary: 'timeout after 500 ms' });
  t.equal(receiver.requests.length, 1, 'the request did arrive');
});

t.test('a late answer after the deadline is a timeout too', async (t) => {
  receiver.answer({ status: 204, delayMs: 5_000 });
  t.same(await postWebhook(destination(receiver), headers, Buffer.from('{}'), 300), { delivered: false, status: null, summary: 'timeout after 300 ms' });
});

t.test('a refused connection is not delivered', async (t) => {
  // A port that was just free: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  t.same(await postWebhook(destination(port), headers, Buffer.from('{}'), TIMEOUT_MS), { delivered: false, status: null, summary: 'connect ECONNREFUSED' });
});

t.test('a certificate that is not valid for the host name is not delivered', async (t) => {
  const outcome = await postWebhook(destination(receiver, '/hooks/stt', 'other.test'), headers, Buffer.from('{}'), TIMEOUT_MS);
  t.same(outcome, { delivered: false, status: null, summary: 'tls ERR_TLS_CERT_ALTNAME_INVALID' });
  t.equal(receiver.requests.length, 0, 'nothing was sent');
});

t.test('the certificate is checked for an IP-literal destination too', async (t) => {
  const literal: ValidatedDestination = {
    url: new URL(`https://127.0.0.1:${receiver.port}/hook`),
    hostname: '127.0.0.1',
    address: '127.0.0.1',
    family: 4,
    port: receiver.port,
  };
  t.same(
    await postWebhook(literal, headers, Buffer.from('{}'), TIMEOUT_MS),
    { delivered: true, status: 204, summary: 'http 204' },
    'the certificate names 127.0.0.1',
  );
  t.equal(receiver.requests[0].servername, null, 'no SNI for an address');

  // 127.0.0.2 is loopback too (so the same receiver answers it on Linux) but not in the certificate.
  const unnamed: ValidatedDestination = { ...literal, url: new URL(`https://127.0.0.2:${receiver.port}/hook`), hostname: '127.0.0.2' };
  t.same(await postWebhook(unnamed, headers, Buffer.from('{}'), TIMEOUT_MS), { delivered: false, status: null, summary: 'tls ERR_TLS_CERT_ALTNAME_INVALID' });
});

t.test('a connection dropped by the receiver is not delivered', async (t) => {
  receiver.answer({ destroySocket: true });
  const outcome = await postWebhook(destination(receiver), headers, Buffer.from('{}'), TIMEOUT_MS);
  t.same(outcome, { delivered: false, status: null, summary: 'connection ECONNRESET' });
});

t.test('a large response body is not read to the end', async (t) => {
  receiver.answer({ status: 200, body: Buffer.alloc(4 * 1024 * 1024, 0x61) });
  t.same(await postWebhook(destination(receiver), headers, Buffer.from('{}'), TIMEOUT_MS), { delivered: true, status: 200, summary: 'http 200' });
});

t.test('a header value the HTTP layer rejects is an outcome, not an exception', async (t) => {
  const outcome = await postWebhook(destination(receiver), { 'webhook-id': 'evt_1\r\nx-injected: 1' }, Buffer.from('{}'), TIMEOUT_MS);
  t.same([outcome.delivered, outcome.status], [false, null]);
  t.equal(receiver.requests.length, 0);
});
