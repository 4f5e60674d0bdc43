// Issue 14, defects 2 and 4, on the real service over real sockets: multipart boundaries outside
// RFC 2046 (1 to 70 characters of its bchars) are refused before parsing — 400 invalid_request on
// the transcription route, S3-style 400 on the upload route — where a boundary over 256 characters
// used to crash busboy into a 500; a repeated form field and a repeated Authorization (or
// Idempotency-Key) header are refused with 400 instead of one copy silently winning.
import { readFile } from 'node:fs/promises';

import t, { type Test } from 'tap';

import type { OpenApiDocument } from '../../src/api/openapi-types.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { createJob, jobBody, uploadFile } from '../helpers/jobs-client.js';
import { multipartBody, rawRequest, type RawResponse } from '../helpers/raw-http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let speech: Buffer;

t.before(async () => {
  svc = await startTestService();
  speech = await readFile(await speechWav(3));
});
t.teardown(() => svc.close());

function expectEnvelope(t: Test, res: RawResponse, status: number, code: string) {
  t.equal(res.status, status, `status ${status}`);
  t.match(res.headers['content-type'], /^application\/json/);
  const body = JSON.parse(res.body);
  t.same(Object.keys(body), ['error'], 'the envelope only');
  t.equal(body.error.code, code);
}

function expectS3Error(t: Test, res: RawResponse, status: number, code: string) {
  t.equal(res.status, status, `status ${status}`);
  t.match(res.headers['content-type'], /application\/xml/);
  t.match(res.body, new RegExp(`<Code>${code}</Code>`), `S3 code ${code}`);
}

const transcription = (boundary: string, body: Buffer, extraHeaders: string[] = []) =>
  rawRequest(
    svc.url,
    ['POST /v1/audio/transcriptions HTTP/1.1', `Authorization: Bearer ${svc.key}`, `Content-Type: multipart/form-data; boundary=${boundary}`, ...extraHeaders],
    body,
  );

const validFields: Array<[string, string]> = [
  ['model', 'svc-medical-1'],
  ['response_format', 'json'],
];
const file = () => ({ name: 'visit.wav', data: speech });

/** Boundaries RFC 2046 refuses: too long (71, busboy's 256 + 1, 1000), empty, characters outside bchars, a trailing space. */
const BAD_BOUNDARIES: Array<[string, string]> = [
  ['71 characters', 'b'.repeat(71)],
  ['257 characters', 'b'.repeat(257)],
  ['1000 characters', 'b'.repeat(1000)],
  ['empty', '""'],
  ['a character outside bchars', 'abc{def}'],
  ['a trailing space', '"abc "'],
];

t.test('transcriptions: a boundary outside RFC 2046 is 400 invalid_request, never 500', async (t) => {
  for (const [name, boundary] of BAD_BOUNDARIES) {
    // The body uses the same boundary (unquoted), so only the boundary's own validity is at stake.
    const bare = boundary.replace(/^"|"$/g, '');
    const res = await transcription(boundary, multipartBody(bare || 'x', validFields, file()));
    t.test(name, async (t) => expectEnvelope(t, res, 400, 'invalid_request'));
  }
  const before = await svc.blobFiles();
  t.same(before.uploads, [], 'nothing was stored for any of them');

  const longest = 'B'.repeat(35) + "'()+_,-./:=?".repeat(2) + '0'.repeat(11);
  t.equal(longest.length, 70);
  const quoted = `"${longest}"`;
  const ok = await transcription(quoted, multipartBody(longest, validFields, file()));
  t.equal(ok.status, 200, 'a valid 70-character boundary with every bchar punctuation is accepted');
  t.type(JSON.parse(ok.body).text, 'string');
});

t.test('uploads: a boundary outside RFC 2046 is an S3-style 400; the form stays usable', async (t) => {
  const job = await createJob(svc.url, svc.key, jobBody(speech));
  const path = new URL(job.upload.url).pathname;
  const upload = (boundary: string, body: Buffer) =>
    rawRequest(svc.url, [`POST ${path} HTTP/1.1`, `Content-Type: multipart/form-data; boundary=${boundary}`], body);
  for (const [name, boundary] of BAD_BOUNDARIES) {
    const bare = boundary.replace(/^"|"$/g, '');
    const res = await upload(boundary, multipartBody(bare || 'x', Object.entries(job.upload.fields), file()));
    t.test(name, async (t) => expectS3Error(t, res, 400, 'MalformedPOSTRequest'));
  }
  const files = await svc.blobFiles();
  t.same(files.uploads, [], 'nothing was stored');
  const longest = 'u'.repeat(70);
  const ok = await upload(longest, multipartBody(longest, Object.entries(job.upload.fields), file()));
  t.equal(ok.status, 204, 'the same form with a valid 70-character boundary is stored');
});

t.test('a repeated form field is refused, not resolved by taking one of the values', async (t) => {
  const boundary = 'dup-boundary';
  const dupModel = await transcription(
    boundary,
    multipartBody(
      boundary,
      [
        ['model', 'whisper-1'],
        ['model', 'svc-medical-1'],
        ['response_format', 'json'],
      ],
      file(),
    ),
  );
  expectEnvelope(t, dupModel, 400, 'invalid_request');
  t.match(JSON.parse(dupModel.body).error.message, /more than once/);
  t.notMatch(dupModel.body, /whisper-1/, 'the message does not echo the values');
  const sameValue = await transcription(
    boundary,
    multipartBody(
      boundary,
      [
        ['model', 'svc-medical-1'],
        ['model', 'svc-medical-1'],
      ],
      file(),
    ),
  );
  expectEnvelope(t, sameValue, 400, 'invalid_request');
  const afterFile = await rawRequest(
    svc.url,
    ['POST /v1/audio/transcriptions HTTP/1.1', `Authorization: Bearer ${svc.key}`, `Content-Type: multipart/form-data; boundary=${boundary}`],
    Buffer.concat([
      multipartBody(boundary, validFields, file()).subarray(0, -`--${boundary}--\r\n`.length),
      multipartBody(boundary, [['model', 'svc-medical-edge-1']]),
    ]),
  );
  expectEnvelope(t, afterFile, 400, 'invalid_request');
  t.same((await svc.blobFiles()).uploads, [], 'no upload left behind');

  const job = await createJob(svc.url, svc.key, jobBody(speech));
  const path = new URL(job.upload.url).pathname;
  const fields = Object.entries(job.upload.fields);
  const twice = await rawRequest(
    svc.url,
    [`POST ${path} HTTP/1.1`, `Content-Type: multipart/form-data; boundary=${boundary}`],
    multipartBody(boundary, [...fields, ['key', job.upload.fields.key]], file()),
  );
  expectS3Error(t, twice, 400, 'InvalidArgument');
  t.equal((await uploadFile(job, speech)).status, 204, 'the form is still usable as issued');
});

t.test('two Authorization headers: 400 invalid_request on every authenticated route', async (t) => {
  // The route list is the OpenAPI document's: every operation that names a security requirement.
  const document = (await (await fetch(`${svc.url}/v1/openapi.json`)).json()) as OpenApiDocument;
  const routes: Array<[string, string]> = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, { security?: unknown[] }>)) {
      if ((operation.security ?? document.security).length > 0) routes.push([method.toUpperCase(), path.replace('{job_id}', 'job_0123456789abcdefghijkl')]);
    }
  }
  t.ok(routes.length >= 7, `${routes.length} authenticated routes`);
  const other = (await svc.createKey()).key;
  for (const [method, path] of routes) {
    for (const [label, second] of [
      ['the same key twice', svc.key],
      ['two different keys', other],
    ] as const) {
      const res = await rawRequest(svc.url, [`${method} ${path} HTTP/1.1`, `Authorization: Bearer ${svc.key}`, `authorization: Bearer ${second}`]);
      t.test(`${method} ${path}: ${label}`, async (t) => expectEnvelope(t, res, 400, 'invalid_request'));
    }
  }
  const single = await rawRequest(svc.url, ['GET /v1/jobs/job_0123456789abcdefghijkl HTTP/1.1', `Authorization: Bearer ${svc.key}`]);
  t.equal(single.status, 404, 'one header: authenticated as usual');
  const open = await rawRequest(svc.url, ['GET /v1/openapi.json HTTP/1.1', `Authorization: Bearer ${svc.key}`, `Authorization: Bearer ${other}`]);
  t.equal(open.status, 200, 'a public route does not read the header');
});

t.test('two Idempotency-Key headers: 400 invalid_request (Node would join them into a third key)', async (t) => {
  const res = await rawRequest(
    svc.url,
    ['POST /v1/jobs HTTP/1.1', `Authorization: Bearer ${svc.key}`, 'Content-Type: application/json', 'Idempotency-Key: a', 'Idempotency-Key: b'],
    JSON.stringify(jobBody(speech)),
  );
  expectEnvelope(t, res, 400, 'invalid_request');
});
