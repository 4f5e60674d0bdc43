// Real answers of every route and format, checked against the service's own OpenAPI document (the
// one GET /v1/openapi.json serves): the document is only worth its name if what the server sends
// conforms to it. Where an answer is JSON in more than one shape (the transcription formats, a job's
// result), the document's `oneOf` must pick exactly one branch, which ajv enforces.
import { readFile } from 'node:fs/promises';

import t, { type Test } from 'tap';

import { speechWav, wavFileBytes } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, createJobRequest, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { OwnDocumentValidator } from '../helpers/own-document-validator.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let documented: OwnDocumentValidator;
let speech: Buffer;
let long: Buffer;

t.before(async () => {
  svc = await startTestService({ SVC_JOB_CHUNK_SECONDS: '5', SVC_INLINE_BOUNDARY_SECONDS: '10' });
  documented = await OwnDocumentValidator.fetch(svc.url);
  speech = await readFile(await speechWav(8));
  long = await readFile(await speechWav(12));
});
t.teardown(() => svc.close());

/** Checks a fetched answer against the document's answer for the operation, and returns its body. */
async function conforms(t: Test, method: string, path: string, res: Response, expectedStatus: number): Promise<any> {
  const contentType = res.headers.get('content-type') ?? '';
  const text = await res.text();
  t.equal(res.status, expectedStatus, `${method} ${path}: ${expectedStatus}`);
  t.match(res.headers.get('x-request-id'), /^req_/);
  const body = contentType.startsWith('application/json') ? JSON.parse(text) : text;
  t.same(documented.errors(method, path, res.status, contentType, body), [], `${method} ${path} ${res.status} ${contentType.split(';')[0]} conforms`);
  return body;
}

const TRANSCRIBE = '/v1/audio/transcriptions';
const TRANSLATE = '/v1/audio/translations';
const wav = () => ({ data: speech, name: 'visit.wav' });
const base = { model: 'svc-medical-1', language: 'en' };

t.test('transcriptions: every response format, logprobs, speakers and words', async (t) => {
  const cases: Array<[string, Record<string, string>]> = [
    ['json', { response_format: 'json' }],
    ['json with logprobs', { response_format: 'json', 'include[]': 'logprobs' }],
    ['verbose_json with words', { response_format: 'verbose_json', 'timestamp_granularities[]': 'word' }],
    ['diarized_json with speakers', { response_format: 'diarized_json', diarize: 'true' }],
    ['text', { response_format: 'text' }],
    ['srt', { response_format: 'srt' }],
    ['vtt', { response_format: 'vtt' }],
  ];
  for (const [label, fields] of cases) {
    const body = await conforms(t, 'POST', TRANSCRIBE, await postTranscription(svc.url, svc.key, { ...base, ...fields }, wav()), 200);
    t.ok(typeof body === 'string' ? body.length > 0 : 'text' in body, `${label}: an answer to check`);
  }
});

t.test('a verbose answer is not also a json one: the 200 oneOf has exactly one match', async (t) => {
  const verbose = await conforms(t, 'POST', TRANSCRIBE, await postTranscription(svc.url, svc.key, { ...base, response_format: 'verbose_json' }, wav()), 200);
  // The same body as a json answer would be refused: the json branch is closed.
  t.not(
    documented.errors('POST', TRANSCRIBE, 200, 'application/json', { text: verbose.text, segments: verbose.segments }).length,
    0,
    'a half-verbose body matches neither',
  );
  t.same(documented.errors('POST', TRANSCRIBE, 200, 'application/json', { text: verbose.text }), [], 'a bare json body matches');
});

t.test('silence with language=auto: und with a detection block of no utterances, as documented', async (t) => {
  const silence = { data: wavFileBytes(new Int16Array(3 * 16_000)), name: 'quiet.wav' };
  const body = await conforms(
    t,
    'POST',
    TRANSCRIBE,
    await postTranscription(svc.url, svc.key, { ...base, language: 'auto', response_format: 'verbose_json' }, silence),
    200,
  );
  t.match(body, { language: 'und', language_source: 'detected', language_detection: { utterances: 0, languages: [], fallbacks: 0 } });
});

t.test('streamed events, one by one', async (t) => {
  const res = await postTranscription(svc.url, svc.key, { ...base, response_format: 'diarized_json', stream: 'true' }, wav());
  t.equal(res.status, 200);
  const events = (await res.text())
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)));
  t.ok(events.length >= 2, `${events.length} events`);
  for (const event of events) t.same(documented.errors('POST', TRANSCRIBE, 200, 'text/event-stream', event), [], `${event.type} conforms`);
});

t.test('translations: json, verbose_json and text', async (t) => {
  for (const format of ['json', 'verbose_json', 'text']) {
    await conforms(
      t,
      'POST',
      TRANSLATE,
      await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', response_format: format }, wav(), {}, TRANSLATE),
      200,
    );
  }
});

t.test('inline routes accept long audio as a job (202)', async (t) => {
  const accepted = await conforms(
    t,
    'POST',
    TRANSCRIBE,
    await postTranscription(svc.url, svc.key, { ...base, response_format: 'verbose_json' }, { data: long, name: 'long.wav' }),
    202,
  );
  t.equal((await waitForEnd(accepted.poll_url, svc.key)).status, 'succeeded');
  await conforms(t, 'GET', '/v1/jobs/{job_id}', await fetch(`${accepted.poll_url}?include_result=true`, { headers: auth(svc.key) }), 200);
  await conforms(t, 'GET', '/v1/jobs/{job_id}/result', await fetch(`${accepted.poll_url}/result`, { headers: auth(svc.key) }), 200);
});

t.test('jobs: created, uploaded, completed, polled, read in each result shape', async (t) => {
  for (const format of ['json', 'verbose_json', 'diarized_json', 'text', 'vtt']) {
    const created = await conforms(
      t,
      'POST',
      '/v1/jobs',
      await createJobRequest(svc.url, svc.key, jobBody(long, { response_format: format, language: 'en' })),
      201,
    );
    const uploaded = await uploadFile(created, long);
    t.equal(uploaded.status, 204);
    await conforms(t, 'POST', '/v1/jobs/{job_id}/complete', await completeJob(created, svc.key), 202);
    t.equal((await waitForEnd(created.poll_url, svc.key)).status, 'succeeded');
    const polled = await conforms(t, 'GET', '/v1/jobs/{job_id}', await fetch(`${created.poll_url}?include_result=true`, { headers: auth(svc.key) }), 200);
    t.equal(polled.result.inline, true, `${format}: the result inline`);
    await conforms(t, 'GET', '/v1/jobs/{job_id}/result', await fetch(`${created.poll_url}/result`, { headers: auth(svc.key) }), 200);
  }
});

t.test('a running job answers its poll and its provisional transcript as documented', async (t) => {
  const created = await createJob(svc.url, svc.key, jobBody(long, { response_format: 'json', language: 'en' }));
  await uploadFile(created, long);
  await completeJob(created, svc.key);
  let checkedPartial = false;
  for (;;) {
    const { body } = await poll(created.poll_url, svc.key);
    if (body.status === 'succeeded') break;
    if (body.status === 'running' && body.transcription?.partial_result_url) {
      const partial = await fetch(body.transcription.partial_result_url, { headers: auth(svc.key) });
      // The job may finish between the poll and the read (404 then); only a 200 is checked.
      if (partial.status === 200) {
        await conforms(t, 'GET', '/v1/jobs/{job_id}/partial', partial, 200);
        checkedPartial = true;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.comment(checkedPartial ? 'a provisional transcript was checked' : 'the job finished before a provisional transcript could be read');
});

t.test('models, the document itself, and errors in the envelope', async (t) => {
  await conforms(t, 'GET', '/v1/models', await fetch(`${svc.url}/v1/models`, { headers: auth(svc.key) }), 200);
  await conforms(t, 'GET', '/v1/models/{model}', await fetch(`${svc.url}/v1/models/svc-medical-edge-1`, { headers: auth(svc.key) }), 200);
  await conforms(t, 'GET', '/v1/models/{model}', await fetch(`${svc.url}/v1/models/whisper-1`, { headers: auth(svc.key) }), 404);
  await conforms(t, 'GET', '/v1/openapi.json', await fetch(`${svc.url}/v1/openapi.json`), 200);
  const unknownJob = `${svc.url}/v1/jobs/job_0123456789abcdefghijkl`;
  await conforms(t, 'GET', '/v1/jobs/{job_id}', await fetch(unknownJob, { headers: auth(svc.key) }), 404);
  await conforms(t, 'GET', '/v1/jobs/{job_id}', await fetch(`${unknownJob}?wait=later`, { headers: auth(svc.key) }), 400);
  await conforms(t, 'GET', '/v1/jobs/{job_id}', await fetch(unknownJob), 401);
  await conforms(t, 'DELETE', '/v1/jobs/{job_id}', await fetch(unknownJob, { method: 'DELETE', headers: auth(svc.key) }), 405);
  await conforms(t, 'POST', '/v1/jobs', await createJobRequest(svc.url, svc.key, jobBody(long, { language: 'xx' })), 422);
  await conforms(t, 'POST', TRANSCRIBE, await postTranscription(svc.url, svc.key, { ...base, temperature: 'banana' }, wav()), 400);
  await conforms(t, 'POST', TRANSLATE, await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', diarize: 'true' }, wav(), {}, TRANSLATE), 422);
});
