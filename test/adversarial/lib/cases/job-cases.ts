// The /v1/jobs routes. Creation: a valid JSON body with one field made hostile (wrong type, out of
// range, huge, unknown, missing), or JSON that is not JSON at all. The id routes (poll, complete,
// result, partial, redacted audio, unredacted result, DELETE): a real job of the fuzzing key or another tenant's view of it, or a
// hostile id, with hostile query strings, path suffixes and methods.
import fc from 'fast-check';

import { authChoice, type CaseSpec, framing } from '../case-spec.js';
import { SPEECH_BYTES } from '../fuzz-fixtures.js';
import { ECHO_CANARY, extraHeaders, hostileId, hostileMethod, hostileQuery, hostileText, materialize } from '../hostile-values.js';
import { CANARY_FILENAME_PREFIX, WEBHOOK_PLACEHOLDER } from './transcription-cases.js';

export const JOB_CREATION = 'POST /v1/jobs';
export const JOB_ID_ROUTES = '/v1/jobs/{job_id}[/complete|/result|/partial|/redacted_audio|/unredacted_result]';

/** A job the fuzz's speech file can fulfil (upload-cases.ts posts it to these jobs' forms). */
export const VALID_JOB = {
  filename: `${CANARY_FILENAME_PREFIX}-long.wav`,
  content_type: 'audio/wav',
  content_length_bytes: SPEECH_BYTES,
};

const OPTIONAL: Readonly<Record<string, readonly unknown[]>> = {
  model: ['svc-medical-1'],
  response_format: ['json', 'verbose_json'],
  language: ['en', 'auto', 'pt-BR'],
  language_hints: [['en', 'es']],
  vocabulary: [['troponin']],
  patterns: ['\\d+'],
  profile: ['turbo'],
  diarize: [true],
  max_speakers: [2],
  webhook_url: [WEBHOOK_PLACEHOLDER],
};
const JOB_FIELDS = [...Object.keys(VALID_JOB), ...Object.keys(OPTIONAL)];

/** JSON values of every type, edge numbers, and hostile strings. */
const hostileJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, 1_073_741_825, [], {}, [null], { nested: { deeper: [1] } }),
  hostileText.map((t) => materialize(t)),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.constant(Array.from({ length: 1001 }, (_, i) => `term-${i}`)),
  fc.constant(['x'.repeat(97)]),
);

/** Bodies that are not the JSON they claim to be. */
const brokenJson = fc.constantFrom(
  '',
  '{',
  '{"filename":',
  `{"filename":"${ECHO_CANARY}.wav",}`,
  "{'filename':'a.wav'}",
  '[]',
  '"a string"',
  '42',
  'null',
  '{"__proto__":{"polluted":true},"filename":"a.wav"}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  `{"filename":"a.wav","filename":"b.mp3","content_type":"audio/wav","content_length_bytes":10}`,
  '\uFEFF{"filename":"a.wav"}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"filename":"${'\\ud800'}.wav","content_type":"audio/wav","content_length_bytes":10}`,
);

const creationBody: fc.Arbitrary<{ mutation: string; text: string }> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ mutation: 'valid job', text: JSON.stringify(VALID_JOB) }) },
  {
    weight: 2,
    arbitrary: fc.subarray(Object.keys(OPTIONAL), { maxLength: 3 }).map((names) => ({
      mutation: `valid options ${names.join(',')}`,
      text: JSON.stringify({ ...VALID_JOB, ...Object.fromEntries(names.map((n) => [n, OPTIONAL[n][0]])) }),
    })),
  },
  {
    weight: 6,
    arbitrary: fc.tuple(fc.constantFrom(...JOB_FIELDS, 'unknown_field', 'temperature'), hostileJsonValue).map(([name, value]) => ({
      mutation: `hostile ${name}`,
      text: JSON.stringify({ ...VALID_JOB, [name]: value }),
    })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...Object.keys(VALID_JOB)).map((name) => ({
      mutation: `${name} missing`,
      text: JSON.stringify(Object.fromEntries(Object.entries(VALID_JOB).filter(([n]) => n !== name))),
    })),
  },
  { weight: 2, arbitrary: brokenJson.map((text) => ({ mutation: 'broken JSON', text })) },
);

const JSON_CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
  '',
] as const;

export const jobCreationCase: fc.Arbitrary<CaseSpec> = fc
  .record({
    body: creationBody,
    contentType: fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...JSON_CONTENT_TYPES) }),
    auth: authChoice,
    headers: extraHeaders,
    framing,
  })
  .map(({ body, contentType, auth, headers, framing }) => ({
    route: JOB_CREATION,
    mutation: `${body.mutation}; ${contentType || 'no content type'}`,
    auth,
    job: 'none',
    method: 'POST',
    target: '/v1/jobs',
    headers,
    body: { kind: 'json', text: body.text, contentType: contentType === '' ? null : contentType },
    framing,
  }));

const SUFFIXES = [
  '',
  '/complete',
  '/result',
  '/partial',
  '/redacted_audio',
  '/',
  '/complete/',
  '//complete',
  '/COMPLETE',
  '/result.json',
  '/../result',
  '/%2e%2e/result',
  '/unredacted_result',
] as const;

/** The methods each id route is registered with (others get 405/404): each is drawn, so none depends on a hostile method's luck. */
const ROUTE_METHODS: Readonly<Record<string, readonly string[]>> = {
  '': ['GET', 'DELETE'],
  '/complete': ['POST'],
  '/result': ['GET'],
  '/partial': ['GET'],
  '/redacted_audio': ['GET'],
  '/unredacted_result': ['GET'],
};

export const jobIdCase: fc.Arbitrary<CaseSpec> = fc
  .record({
    id: fc.oneof({ weight: 3, arbitrary: fc.constant('{job}') }, { weight: 2, arbitrary: hostileId }),
    suffix: fc.constantFrom(...SUFFIXES),
    method: fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: hostileMethod }),
    registered: fc.nat(),
    query: hostileQuery,
    auth: authChoice,
    headers: extraHeaders,
    body: fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: hostileText }),
  })
  .map(({ id, suffix, method, registered, query, auth, headers, body }) => {
    const methods = ROUTE_METHODS[suffix] ?? ['GET'];
    const chosen = method || methods[registered % methods.length];
    // Long polls are kept short: a real wait would only slow the run down.
    const safeQuery = id === '{job}' && /wait=[1-9]/.test(query) ? '' : query;
    return {
      route: JOB_ID_ROUTES,
      mutation: `${chosen} ${id === '{job}' ? 'real job' : 'hostile id'}${suffix}${safeQuery ? ' with query' : ''}${body ? ' with body' : ''}`,
      auth,
      job: id === '{job}' ? 'fresh' : 'none',
      method: chosen,
      target: `/v1/jobs/${id}${suffix}${safeQuery}`,
      headers,
      body: body === null ? { kind: 'none' } : { kind: 'json', text: body, contentType: 'application/json' },
      framing: 'length',
    } satisfies CaseSpec;
  });
