// Regression tests for the parser defects of issue 14, seen from the fuzzing client: multipart
// boundaries longer than RFC 2046's 70 characters, duplicate multipart fields, and duplicate
// Authorization headers must each be refused with 400; the 70-character boundary must keep working.
// (Defect 3, responses that are never read, is with the connection limits in resource-limits.)
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { type AdversarialServer, startAdversarialServer } from './lib/adversarial-server.js';
import { MAX_BOUNDARY_LENGTH, type Part } from './lib/multipart.js';
import { bearer, createJob, formParts, multipartRequest, send, statusAndCode } from './lib/raw-client.js';
import { envelopeProblem, s3ErrorProblem } from './lib/response-invariants.js';

let server: AdversarialServer;
let speech: Buffer;

t.before(async () => {
  server = await startAdversarialServer();
  speech = await readFile(await speechWav(1.5));
});
t.teardown(() => server.stop());

const text = (name: string, value: string): Part => ({ name, data: Buffer.from(value) });
const audio = (): Part => ({ name: 'file', filename: 'visit.wav', contentType: 'audio/wav', data: speech });
const transcription = (parts: Part[], boundary?: string) =>
  multipartRequest(server, '/v1/audio/transcriptions', parts, { boundary, headers: [bearer(server.keys.valid)] });

t.test(`a boundary of exactly ${MAX_BOUNDARY_LENGTH} characters is accepted`, async (t) => {
  const outcome = await send(
    server,
    transcription([text('model', 'svc-medical-1'), text('response_format', 'json'), audio()], 'b'.repeat(MAX_BOUNDARY_LENGTH)),
  );
  t.equal(statusAndCode(outcome), '200');
});

for (const length of [MAX_BOUNDARY_LENGTH + 1, 300]) {
  t.test(`a boundary of ${length} characters: 400 invalid_request on the direct route`, async (t) => {
    const outcome = await send(server, transcription([text('model', 'svc-medical-1'), audio()], 'b'.repeat(length)));
    t.equal(statusAndCode(outcome), '400 invalid_request', 'refused');
    if (outcome.kind === 'response') t.equal(envelopeProblem(outcome.response), null, 'the envelope');
  });

  t.test(`a boundary of ${length} characters: S3-style 400 on the upload route`, async (t) => {
    const job = await createJob(server, { filename: 'a.wav', content_type: 'audio/wav', content_length_bytes: speech.length });
    const outcome = await send(
      server,
      multipartRequest(server, `/v1/uploads/${job.id}`, [...formParts(job.fields), audio()], { boundary: 'b'.repeat(length) }),
    );
    t.equal(outcome.kind === 'response' ? outcome.response.status : outcome.kind, 400, 'refused');
    if (outcome.kind === 'response') t.equal(s3ErrorProblem(outcome.response), null, 'an S3 error document');
  });
}

t.test('a duplicate multipart field is refused, not silently last-wins', async (t) => {
  const outcome = await send(server, transcription([text('model', 'whisper-1'), text('model', 'svc-medical-1'), text('response_format', 'json'), audio()]));
  t.equal(statusAndCode(outcome), '400 invalid_request', 'refused');
});

t.test('a duplicate field of a presigned form is refused', async (t) => {
  const job = await createJob(server, { filename: 'a.wav', content_type: 'audio/wav', content_length_bytes: speech.length });
  const parts = formParts(job.fields);
  const outcome = await send(server, multipartRequest(server, `/v1/uploads/${job.id}`, [...parts, parts[0], audio()]));
  t.equal(outcome.kind === 'response' ? outcome.response.status : outcome.kind, 400, 'refused');
});

for (const order of ['valid first', 'valid second']) {
  t.test(`two Authorization headers (${order}) are refused with 400`, async (t) => {
    const headers = order === 'valid first' ? [bearer(server.keys.valid), bearer('svc_wrong')] : [bearer('svc_wrong'), bearer(server.keys.valid)];
    const outcome = await send(server, {
      method: 'GET',
      target: '/v1/jobs/job_unknown',
      headers: [['Host', server.host], ['Connection', 'close'], ...headers],
      body: Buffer.alloc(0),
      framing: 'length',
    });
    t.equal(statusAndCode(outcome), '400 invalid_request', 'refused');
  });
}
