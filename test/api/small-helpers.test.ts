// capacityUnavailable / serviceUnavailable, applyProfileDeprecation, Retry-After formatting and the
// connection-level error answers.
import t from 'tap';

import { capacityUnavailable, serviceUnavailable } from '../../src/api/capacity.js';
import { clientErrorAnswer } from '../../src/api/client-error.js';
import { retryAfterSeconds } from '../../src/api/retry-after.js';
import { buildTestApp } from '../helpers/api-test-app.js';

t.test('503 helpers carry Retry-After', async (t) => {
  const capacity = capacityUnavailable(7);
  t.match(capacity, { status: 503, code: 'capacity_unavailable', headers: { 'retry-after': '7' } });
  t.same(Object.keys(capacity.toBody()), ['error']);
  t.match(capacityUnavailable(), { headers: { 'retry-after': '5' } });
  t.match(serviceUnavailable(0.2), { status: 503, code: 'service_unavailable', headers: { 'retry-after': '1' } });
  t.match(serviceUnavailable(30, 'storage is unavailable'), { message: 'storage is unavailable', headers: { 'retry-after': '30' } });
});

t.test('retryAfterSeconds: whole seconds, at least 1', async (t) => {
  t.equal(retryAfterSeconds(0), 1);
  t.equal(retryAfterSeconds(-3), 1);
  t.equal(retryAfterSeconds(1.2), 2);
  t.equal(retryAfterSeconds(20), 20);
  t.equal(retryAfterSeconds(Number.NaN), 60);
});

t.test('deprecated profiles announce themselves; others add nothing', async (t) => {
  const { app, key } = await buildTestApp(t);
  const { auth } = key();
  for (const profile of ['standard', 'turbo']) {
    const res = await app.inject({ method: 'GET', url: `/v1/profile?profile=${profile}`, headers: auth });
    t.equal(res.headers.deprecation, 'true');
    t.equal(res.headers.warning, `299 - "profile '${profile}' is deprecated; use 'default'"`);
  }
  for (const url of ['/v1/profile?profile=default', '/v1/profile', '/v1/profile?profile=ECHO-CANARY-1234']) {
    const res = await app.inject({ method: 'GET', url, headers: auth });
    t.notOk('deprecation' in res.headers, url);
    t.notOk('warning' in res.headers, url);
  }
});

t.test('connection-level errors', async (t) => {
  t.match(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT'), { status: 408, code: 'upload_timeout' });
  t.match(clientErrorAnswer('HPE_HEADER_OVERFLOW'), { status: 431, code: 'invalid_request' });
  t.match(clientErrorAnswer('HPE_INVALID_METHOD'), { status: 400, code: 'invalid_request' });
});

t.test('a route scope that adds multipart does not change other routes', async (t) => {
  const { app, key } = await buildTestApp(t);
  const res = await app.inject({
    method: 'POST',
    url: '/v1/things',
    headers: { ...key().auth, 'content-type': 'multipart/form-data; boundary=x' },
    payload: '--x--\r\n',
  });
  t.equal(res.statusCode, 415);
});
