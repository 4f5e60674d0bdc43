// Every non-success answer of the frame is the contract's envelope, with x-request-id, and never
// echoes what the request carried.
import t from 'tap';

import { assertEnvelope, buildTestApp, CANARY, UNEXPECTED_ERROR_TEXT } from '../helpers/api-test-app.js';

t.test('unknown path: 404 not_found', async (t) => {
  const { app, key } = await buildTestApp(t);
  const { auth } = key();
  for (const url of [`/v1/${CANARY}`, `/nowhere?q=${CANARY}`, '/v1/things/a/b']) {
    const res = await app.inject({ method: 'GET', url, headers: auth });
    assertEnvelope(t, res, 404, 'not_found');
  }
  // Unmatched paths need no key: a 404 reveals no more than the public OpenAPI document.
  assertEnvelope(t, await app.inject({ method: 'GET', url: '/v1/nowhere' }), 404, 'not_found');
  const withBody = await app.inject({
    method: 'POST',
    url: '/v1/nowhere',
    headers: { ...auth, 'content-type': 'application/json' },
    payload: `{${CANARY}`,
  });
  assertEnvelope(t, withBody, 404, 'not_found');
});

t.test('known path, other method: 405 method_not_allowed with Allow', async (t) => {
  const { app, key } = await buildTestApp(t);
  const { auth } = key();
  const res = await app.inject({ method: 'PUT', url: `/v1/things/${CANARY}`, headers: auth });
  assertEnvelope(t, res, 405, 'method_not_allowed');
  t.equal(res.headers.allow, 'DELETE, GET, HEAD');

  const post = await app.inject({ method: 'PATCH', url: '/v1/things', headers: auth });
  assertEnvelope(t, post, 405, 'method_not_allowed');
  t.equal(post.headers.allow, 'POST');

  const malformedBody = await app.inject({
    method: 'POST',
    url: '/v1/things/1',
    headers: { ...auth, 'content-type': 'application/json' },
    payload: `{${CANARY}`,
  });
  assertEnvelope(t, malformedBody, 405, 'method_not_allowed');
  t.equal(malformedBody.headers.allow, 'DELETE, GET, HEAD', 'answered before the body is parsed');

  const openapi = await app.inject({ method: 'POST', url: '/v1/openapi.json' });
  assertEnvelope(t, openapi, 405, 'method_not_allowed');
  t.equal(openapi.headers.allow, 'GET, HEAD');
});

t.test('malformed, empty and oversize JSON bodies, wrong content types', async (t) => {
  const { app, key } = await buildTestApp(t);
  const { auth } = key();
  const post = (payload: string | Buffer, contentType: string | undefined) =>
    app.inject({
      method: 'POST',
      url: '/v1/things',
      headers: { ...auth, ...(contentType ? { 'content-type': contentType } : {}) },
      payload,
    });

  assertEnvelope(t, await post(`{"name": "${CANARY}`, 'application/json'), 400, 'invalid_request');
  assertEnvelope(t, await post(`${CANARY}`, 'application/json'), 400, 'invalid_request');
  assertEnvelope(t, await post('{"__proto__": {"x": 1}, "name": "a"}', 'application/json'), 400, 'invalid_request');
  assertEnvelope(t, await post('', 'application/json'), 400, 'invalid_request');
  assertEnvelope(t, await post(`<name>${CANARY}</name>`, 'application/xml'), 415, 'unsupported_media_type');
  assertEnvelope(t, await post(`name=${CANARY}`, `text/plain; x=${CANARY}`), 415, 'unsupported_media_type');
  assertEnvelope(t, await post(`{"name":"${CANARY}"}`, undefined), 415, 'unsupported_media_type');

  const big = JSON.stringify({ name: 'a', pad: CANARY.repeat(Math.ceil((1024 * 1024) / CANARY.length)) });
  assertEnvelope(t, await post(big, 'application/json'), 413, 'upload_too_large');

  const ok = await post('{"name":"a"}', 'application/json');
  t.equal(ok.statusCode, 201, 'a valid body still passes');
});

t.test('schema validation failures: 400 naming only schema fields', async (t) => {
  const { app, key } = await buildTestApp(t);
  const { auth } = key();
  const post = (body: unknown) => app.inject({ method: 'POST', url: '/v1/things', headers: auth, payload: body as object });

  const missing = await post({ [CANARY]: 1 });
  assertEnvelope(t, missing, 400, 'invalid_request');
  t.equal(missing.json().error.message, "the body field 'name' is required");

  const tooLong = await post({ name: CANARY });
  assertEnvelope(t, tooLong, 400, 'invalid_request');
  t.equal(tooLong.json().error.message, "the body field 'name' is not valid");

  const wrongType = await post({ name: 'a', size: CANARY });
  assertEnvelope(t, wrongType, 400, 'invalid_request');
  t.equal(wrongType.json().error.message, "the body field 'size' is not valid");
});

t.test('an unexpected error: 500 internal_error without its text', async (t) => {
  const { app, key } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/v1/boom', headers: key().auth });
  assertEnvelope(t, res, 500, 'internal_error');
  t.notOk(res.body.includes('hunter2'), 'no error message');
  t.notOk(res.body.includes(UNEXPECTED_ERROR_TEXT), 'no error text');
  t.notOk(/at .*\.ts:\d+/.test(res.body), 'no stack');
});

t.test('malformed URL encoding: 400 through frameworkErrors', async (t) => {
  const { app, key } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: `/v1/things/%E0%A4-${CANARY}`, headers: key().auth });
  assertEnvelope(t, res, 400, 'invalid_request');
});

t.test('multipart failures map to the contract statuses', async (t) => {
  const { app, key } = await buildTestApp(t);
  const { auth } = key();
  const boundary = '----canaryboundary';
  const form = (parts: Array<{ name: string; filename?: string; value: string }>, end = true) =>
    parts
      .map(
        (p) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}\r\n` +
          `${p.filename ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n${p.value}\r\n`,
      )
      .join('') + (end ? `--${boundary}--\r\n` : '');
  const upload = (payload: string, contentType = `multipart/form-data; boundary=${boundary}`) =>
    app.inject({ method: 'POST', url: '/v1/upload', headers: { ...auth, 'content-type': contentType }, payload });

  const ok = await upload(
    form([
      { name: 'model', value: 'x' },
      { name: 'file', filename: 'a.wav', value: 'abc' },
    ]),
  );
  t.equal(ok.statusCode, 200, 'a well-formed form passes');

  const big = await upload(form([{ name: 'file', filename: `${CANARY}.wav`, value: CANARY.repeat(10) }]));
  assertEnvelope(t, big, 413, 'upload_too_large');

  const files = await upload(
    form([
      { name: 'file', filename: 'a.wav', value: 'a' },
      { name: 'file2', filename: 'b.wav', value: 'b' },
    ]),
  );
  assertEnvelope(t, files, 400, 'invalid_request');

  const fields = await upload(
    form([
      { name: 'a', value: CANARY },
      { name: 'b', value: CANARY },
      { name: 'c', value: CANARY },
    ]),
  );
  assertEnvelope(t, fields, 400, 'invalid_request');

  const proto = await upload(form([{ name: '__proto__', value: CANARY }]));
  assertEnvelope(t, proto, 400, 'invalid_request');

  const truncated = await upload(form([{ name: 'file', filename: 'a.wav', value: CANARY }], false));
  assertEnvelope(t, truncated, 400, 'invalid_request');

  const noBoundary = await upload(form([{ name: 'a', value: CANARY }]), 'multipart/form-data');
  assertEnvelope(t, noBoundary, 400, 'invalid_request');

  const notMultipart = await app.inject({
    method: 'POST',
    url: '/v1/upload',
    headers: { ...auth, 'content-type': 'application/json' },
    payload: JSON.stringify({ file: CANARY }),
  });
  assertEnvelope(t, notMultipart, 415, 'unsupported_media_type');
});

t.test('x-request-id: on successes too, unique, never the client-sent one', async (t) => {
  const { app, key } = await buildTestApp(t);
  const { auth } = key();
  const ids = new Set<string>();
  for (let i = 0; i < 5; i++) {
    const res = await app.inject({ method: 'GET', url: '/v1/things/1', headers: { ...auth, 'x-request-id': CANARY, 'request-id': CANARY } });
    t.equal(res.statusCode, 200);
    t.match(res.headers['x-request-id'], /^req_[0-9A-Za-z]{20}$/);
    ids.add(String(res.headers['x-request-id']));
  }
  t.equal(ids.size, 5, 'a fresh id per request');
  const head = await app.inject({ method: 'HEAD', url: '/v1/openapi.json' });
  t.equal(head.statusCode, 200);
  t.match(head.headers['x-request-id'], /^req_/);
});
