// GET /v1/openapi.json: public, generated from the routes' own schemas, valid OpenAPI 3.1 by a
// standard validator, and a faithful description of the contract (every route, its parameters, its
// answers, the webhook events).
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';

import { API_ERROR_CODES } from '../../src/api/api-error.js';
import { TRANSLATION_FORMATS } from '../../src/contract/request-fields.js';
import { PROFILES, RESPONSE_FORMATS } from '../../src/contract/request-fields.js';
import { TRANSCRIPTION_FIELDS } from '../../src/contract/transcription-request.js';
import { DECORATION_STATUSES, JOB_FAILURE_CODES, JOB_STATUSES } from '../../src/domain/job-statuses.js';
import { LANGUAGE_FAMILIES } from '../../src/domain/language-families.js';
import { MODEL_IDS } from '../../src/domain/model-ids.js';
import { JOB_EVENT_TYPES, JOB_FAILED_EVENT_TYPE, JOB_SUCCEEDED_EVENT_TYPE, jobFailedEvent, jobSucceededEvent } from '../../src/jobs/job-webhook-events.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type Json = Record<string, unknown>;

let svc: TestService;
let served: Json;
t.before(async () => {
  svc = await startTestService();
  served = (await (await fetch(`${svc.url}/v1/openapi.json`)).json()) as Json;
});
t.teardown(() => svc.close());

/** A fresh copy of the served document. */
const document = (): Json => structuredClone(served);

function operations(doc: Json): Array<{ path: string; method: string; op: Json }> {
  const out: Array<{ path: string; method: string; op: Json }> = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of METHODS) if (item[method]) out.push({ path, method, op: item[method] as Json });
  }
  return out;
}

function resolve(doc: Json, pointer: string): unknown {
  if (!pointer.startsWith('#/')) return undefined;
  return pointer
    .slice(2)
    .split('/')
    .reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
}

function refsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else refsIn(value, found);
    }
  }
  return found;
}

/** Follows a $ref (once, as responses and headers are referenced). */
function deref<T>(doc: Json, node: unknown): T {
  const ref = (node as { $ref?: string }).$ref;
  return (ref ? resolve(doc, ref) : node) as T;
}

t.test('served without authentication, as JSON, with x-request-id', async (t) => {
  const res = await fetch(`${svc.url}/v1/openapi.json`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.match(res.headers.get('x-request-id'), /^req_/);
  const doc = (await res.json()) as Json;
  t.equal(doc.openapi, '3.1.0');
  t.same(doc.servers, [{ url: svc.config.publicBaseUrl }], 'the configured public base URL');
});

t.test('valid OpenAPI 3.1 by a standard validator (which does refuse a broken document)', async (t) => {
  const validator = new Validator();
  const result = await validator.validate(document());
  t.same(result.errors ?? [], [], 'no errors');
  t.equal(result.valid, true);
  t.equal(validator.version, '3.1');
  const broken = document();
  delete ((((broken.paths as Json)['/v1/jobs'] as Json).post as Json).responses as Record<string, Json>)['201'].description;
  t.equal((await new Validator().validate(broken)).valid, false, 'a response without a description is refused');
});

t.test('generated from the routes: every API route is documented; only the probes and metrics are not', async (t) => {
  t.same(
    [...svc.service.app.openApi.undocumentedRoutes()].sort(),
    ['GET /healthz', 'GET /metrics', 'GET /readyz'],
    'health probes and metrics are not part of the API',
  );
  const documented = operations(served).map((o) => `${o.method.toUpperCase()} ${o.path}`);
  t.equal(new Set(documented).size, documented.length, 'each operation once');
});

t.test('Fastify validates with the same schemas: a parameter outside them is refused in the envelope', async (t) => {
  const auth = { authorization: `Bearer ${svc.key}` };
  const wait = await fetch(`${svc.url}/v1/jobs/job_0123456789abcdefghijkl?wait=soon`, { headers: auth });
  t.equal(wait.status, 400);
  t.same(await wait.json(), { error: { code: 'invalid_request', message: "the query parameter 'wait' is not valid" } });
  const include = await fetch(`${svc.url}/v1/jobs/job_0123456789abcdefghijkl?include_result=yes`, { headers: auth });
  t.same(await include.json(), { error: { code: 'invalid_request', message: "the query parameter 'include_result' is not valid" } });
  const form = new FormData();
  form.set('model', 'svc-medical-1');
  const key = await fetch(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', headers: { ...auth, 'idempotency-key': 'k'.repeat(256) }, body: form });
  t.equal(key.status, 400);
  t.same(await key.json(), { error: { code: 'invalid_request', message: "the header 'idempotency-key' is not valid" } });
});

t.test('structure: operations, security, responses, references', async (t) => {
  const doc = document();
  const ops = operations(doc);
  t.same(ops.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort(), [
    'DELETE /v1/jobs/{job_id}',
    'DELETE /v1/voices/{voice_id}',
    'GET /v1/jobs/{job_id}',
    'GET /v1/jobs/{job_id}/partial',
    'GET /v1/jobs/{job_id}/redacted_audio',
    'GET /v1/jobs/{job_id}/result',
    'GET /v1/jobs/{job_id}/unredacted_result',
    'GET /v1/models',
    'GET /v1/models/{model}',
    'GET /v1/openapi.json',
    'GET /v1/usage',
    'GET /v1/voices',
    'GET /v1/voices/{voice_id}',
    'POST /v1/audio/transcriptions',
    'POST /v1/audio/translations',
    'POST /v1/jobs',
    'POST /v1/jobs/{job_id}/complete',
    'POST /v1/realtime/client_secrets',
    'POST /v1/uploads/{job_id}',
    'POST /v1/voices',
  ]);
  const ids = new Set<string>();
  for (const { path, method, op } of ops) {
    const name = `${method.toUpperCase()} ${path}`;
    t.type(op.operationId, 'string', `${name}: operationId`);
    t.notOk(ids.has(op.operationId as string), `${name}: unique operationId`);
    ids.add(op.operationId as string);
    t.ok(Array.isArray(op.security), `${name}: security`);
    const responses = op.responses as Json;
    t.ok(Object.keys(responses).length > 0, `${name}: responses`);
    for (const [status, raw] of Object.entries(responses)) {
      const response = deref<{ description: string; content?: Json; headers?: Json }>(doc, raw);
      t.type(response?.description, 'string', `${name} ${status}: description`);
      t.ok(response.headers && 'x-request-id' in response.headers, `${name} ${status}: x-request-id header`);
      // The presigned upload target answers in S3's XML shape (its clients are S3 browser-POST clients).
      if (Number(status) >= 400 && path === '/v1/uploads/{job_id}') {
        t.same(Object.keys(response.content ?? {}), ['application/xml'], `${name} ${status}: S3-style XML error`);
      } else if (Number(status) >= 400) {
        t.same(response.content, { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }, `${name} ${status}: the envelope`);
      }
    }
    for (const match of path.matchAll(/\{([^}]+)\}/g)) {
      const params = ((op.parameters ?? []) as unknown[]).map((p) => deref<{ name: string; in: string; required?: boolean }>(doc, p));
      t.ok(
        params.some((p) => p.name === match[1] && p.in === 'path' && p.required === true),
        `${name}: path parameter ${match[1]}`,
      );
    }
  }
  t.same((ops.find((o) => o.path === '/v1/openapi.json')!.op as Json).security, [], 'the document itself is public');
  t.same((ops.find((o) => o.path === '/v1/uploads/{job_id}')!.op as Json).security, [], 'the signed upload form is its own authority');
  for (const { path, op } of ops.filter((o) => o.path !== '/v1/openapi.json' && o.path !== '/v1/uploads/{job_id}')) {
    t.same(op.security, [{ bearerAuth: [] }], `${path}: bearer`);
  }
  t.same((doc.components as Json).securitySchemes, { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as the bearer token.' } });

  const refs = refsIn(doc);
  t.ok(refs.length > 50, 'references are used');
  for (const ref of new Set(refs)) t.ok(resolve(doc, ref) !== undefined, `${ref} resolves`);
});

t.test('the direct-upload form is the contract table, with its enums and defaults', async (t) => {
  const doc = document();
  const op = (doc.paths as Json)['/v1/audio/transcriptions'] as Json;
  const body = ((op.post as Json).requestBody as Json).content as Json;
  const form = deref<{ required: string[]; properties: Record<string, Json> }>(doc, (body['multipart/form-data'] as Json).schema);
  t.same(
    Object.keys(form.properties).sort(),
    // The single-value spellings of OpenAI's array fields are described with their `[]` form.
    [
      'file',
      ...TRANSCRIPTION_FIELDS.filter(
        (name) => !['include', 'timestamp_granularities', 'known_speaker_names', 'known_speaker_references', 'known_speakers'].includes(name),
      ),
    ].sort(),
  );
  t.same(form.required.sort(), ['file', 'model']);
  t.same(form.properties.model.enum, MODEL_IDS);
  t.same(form.properties.model.enum, ['svc-medical-1', 'svc-medical-edge-1']);
  t.same(form.properties.response_format.enum, RESPONSE_FORMATS);
  t.equal(form.properties.response_format.default, 'diarized_json');
  t.same(form.properties.profile.enum, PROFILES);
  t.equal(form.properties.profile.default, 'default');
  t.equal(form.properties.diarize.default, false);
  t.equal(form.properties.dictionary.default, true);
  t.equal(form.properties.webhook_url.maxLength, 2048);
  t.equal(form.properties.file.format, 'binary');

  const responses = (op.post as Json).responses as Json;
  t.same(Object.keys(responses).sort(), ['200', '202', '400', '401', '402', '403', '408', '409', '413', '415', '422', '429', '500', '503']);
  const accepted = responses['202'] as Json;
  t.ok('Location' in (accepted.headers as Json) && 'Retry-After' in (accepted.headers as Json), '202 headers');
  const ok = (responses['200'] as Json).content as Json;
  t.ok('text/plain' in ok && 'application/json' in ok, '200 text and JSON');

  const schemas = (doc.components as Json).schemas as Record<string, Json>;
  for (const name of ['Segment', 'Word', 'LanguageDetection', 'VocabularyAudit', 'Metadata', 'AcceptedJob', 'Job', 'CreatedJob', 'Error']) {
    t.ok(schemas[name], `${name} schema`);
  }
  t.same((schemas.Segment.required as string[]).sort(), ['end', 'id', 'speaker', 'start', 'text']);
  t.same((((schemas.Error.properties as Json).error as Json).properties as Json).code, { type: 'string', enum: API_ERROR_CODES });
  t.equal(schemas.Error.additionalProperties, false);
});

t.test('jobs routes: wait and include_result, DELETE is 405 cancellation_not_supported', async (t) => {
  const doc = document();
  const item = (doc.paths as Json)['/v1/jobs/{job_id}'] as Json;
  const params = ((item.get as Json).parameters as unknown[]).map((p) => deref<{ name: string; in: string }>(doc, p));
  t.same(
    params.map((p) => `${p.in}:${p.name}`),
    ['path:job_id', 'query:wait', 'query:include_result'],
  );
  const del = (item.delete as Json).responses as Json;
  t.same(del['405'], { $ref: '#/components/responses/CancellationNotSupported' });
  const create = (((doc.paths as Json)['/v1/jobs'] as Json).post as Json).responses as Json;
  t.ok(create['201'], 'POST /v1/jobs answers 201');
});

t.test("min_audio_seconds is documented as the contract's advisory 30, not as a floor", async (t) => {
  const created = ((document().components as Json).schemas as Record<string, Json>).CreatedJob;
  const field = (((created.allOf as Json[])[1] as Json).properties as Json).min_audio_seconds as Json;
  t.equal(field.const, 30, 'the contract keeps the constant');
  t.match(field.description, /^Advisory, not a limit/);
  t.match(field.description, /only audio under 1 s fails, as `audio_undecodable`/, 'names the real floor');
});

t.test('the webhook events are documented as the bodies the service sends', async (t) => {
  const doc = document();
  const input = { jobId: 'job_1', keyId: 'key_1', secretVersion: 1, url: 'https://h.example/x', pollUrl: 'https://s.example/v1/jobs/job_1', nowMs: 0 };
  const events: Array<[string, string, string]> = [
    [JOB_SUCCEEDED_EVENT_TYPE, 'JobSucceededEvent', jobSucceededEvent(input).body],
    [JOB_FAILED_EVENT_TYPE, 'JobFailedEvent', jobFailedEvent(input, 'audio_undecodable').body],
  ];
  t.same(Object.keys(doc.webhooks as Json).sort(), [...JOB_EVENT_TYPES].sort(), 'every event type, no other');
  for (const [type, name, sent] of events) {
    const hook = ((doc.webhooks as Json)[type] as Json).post as Json;
    t.same(
      ((hook.parameters as Json[]) ?? []).map((p) => p.name),
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
    );
    const schema = resolve(doc, `#/components/schemas/${name}`) as Json;
    t.same((((hook.requestBody as Json).content as Json)['application/json'] as Json).schema, { $ref: `#/components/schemas/${name}` });
    const body = JSON.parse(sent);
    t.equal(body.type, type);
    t.same(Object.keys(body).sort(), [...(schema.required as string[])].sort(), `${type}: exactly the documented fields`);
    const data = (schema.properties as Json).data as Json;
    t.same(Object.keys(body.data).sort(), [...(data.required as string[])].sort());
    t.match(body.id, new RegExp(((schema.properties as Json).id as Json).pattern as string));
  }
});

t.test("the document's enums are the code's own declarations", async (t) => {
  const schemas = (served.components as Json).schemas as Record<string, Json>;
  const property = (schema: string, name: string) => (schemas[schema].properties as Record<string, Json>)[name];
  t.same(property('Job', 'status').enum, JOB_STATUSES);
  t.same(
    property('AcceptedJob', 'status').enum,
    JOB_STATUSES.filter((s) => s !== 'awaiting_upload'),
  );
  t.same(property('JobError', 'code').enum, JOB_FAILURE_CODES);
  t.same(property('Decoration', 'status').enum, DECORATION_STATUSES);
  t.same(property('JobCreationRequest', 'response_format').enum, RESPONSE_FORMATS);
  t.same(property('TranslationRequest', 'response_format').enum, TRANSLATION_FORMATS);
  const language = new RegExp(property('JobCreationRequest', 'language').pattern as string);
  for (const family of LANGUAGE_FAMILIES) {
    t.ok(language.test(family) && language.test(`${family.toUpperCase()}-gb`) && language.test(`${family}-419`), `${family} in any case, with a region`);
  }
  t.notOk(language.test('xx'), 'an unsupported family is not');
  t.ok(language.test('auto'));
});
