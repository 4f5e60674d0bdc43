// GET /v1/models and /v1/models/{model} through the official `openai` client: OpenAI's list shape with
// the two model ids, the file and build serving each, and whether it is loaded; an unknown id is a
// 404 in the envelope; a key is needed.
import { basename } from 'node:path';

import OpenAI from 'openai';
import t from 'tap';

import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let client: OpenAI;

t.before(async () => {
  svc = await startTestService();
  client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
});
t.teardown(() => svc.close());

t.test('models.list() names both models and what serves them', async (t) => {
  const models = [];
  for await (const model of client.models.list()) models.push(model as OpenAI.Models.Model & Record<string, unknown>);
  t.same(
    models.map((m) => m.id),
    ['svc-medical-1', 'svc-medical-edge-1'],
  );
  for (const model of models) {
    t.match(model, { object: 'model', owned_by: 'svc-stt', loaded: true });
    t.equal(model.file, basename(svc.config.models[model.id as 'svc-medical-1']), 'the configured file');
    t.match(model.model_build, new RegExp(`^whisper\\.cpp-1\\.9\\.1/.+/${basename(String(model.file)).replace(/\./g, '\\.')}$`));
    t.ok(Number.isInteger(model.created) && model.created > 1_600_000_000, 'unix seconds');
  }
});

t.test('models.retrieve() gives one model; an unknown id is 404 not_found', async (t) => {
  const edge = (await client.models.retrieve('svc-medical-edge-1')) as OpenAI.Models.Model & Record<string, unknown>;
  t.match(edge, { id: 'svc-medical-edge-1', object: 'model', loaded: true });
  const error = await client.models.retrieve('whisper-1').then(
    () => null,
    (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
  );
  t.ok(error instanceof OpenAI.NotFoundError);
  t.same(error?.error, { code: 'not_found', message: 'no such model: this server has svc-medical-1 and svc-medical-edge-1' });
});

t.test('a key is needed', async (t) => {
  for (const path of ['/v1/models', '/v1/models/svc-medical-1']) {
    const res = await fetch(`${svc.url}${path}`);
    t.equal(res.status, 401);
    t.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthorized');
  }
  const post = await fetch(`${svc.url}/v1/models`, { method: 'POST', headers: { authorization: `Bearer ${svc.key}` } });
  t.equal(post.status, 405, 'read-only');
});
