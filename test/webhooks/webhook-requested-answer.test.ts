// Both job-creating answers say whether a webhook was asked for: the direct upload's 202 and the job
// route's 201 carry the same `webhook: {requested}` block, as /v1/openapi.json documents them.
import t from 'tap';

import { createJobRequest, jobBody } from '../helpers/jobs-client.js';
import { OwnDocumentValidator } from '../helpers/own-document-validator.js';
import { PUBLIC } from '../helpers/ssrf-cases.js';
import { postTranscription } from '../helpers/test-service.js';
import { startWebhookService } from '../helpers/webhook-service.js';

t.test('POST /v1/jobs answers the webhook block the direct upload answers', async (t) => {
  const setup = await startWebhookService(t, { loopback: false, dns: { 'public.test': { A: [PUBLIC] } } });
  await setup.createSecret(Date.now());
  const document = await OwnDocumentValidator.fetch(setup.svc.url);
  const webhook_url = 'https://public.test/hook';

  const direct = await postTranscription(
    setup.svc.url,
    setup.key,
    { model: 'svc-medical-1', webhook_url },
    { data: setup.audio, name: 'visit.wav', type: 'audio/wav' },
  );
  t.equal(direct.status, 202);
  const accepted = (await direct.json()) as { webhook: unknown };
  t.same(accepted.webhook, { requested: true }, 'the direct 202');

  for (const [extra, requested] of [
    [{ webhook_url }, true],
    [{}, false],
  ] as const) {
    const res = await createJobRequest(setup.svc.url, setup.key, jobBody(setup.audio, extra));
    t.equal(res.status, 201);
    const created = (await res.json()) as { webhook: unknown };
    t.same(created.webhook, { requested }, `the 201, webhook requested: ${requested}`);
    t.same(document.errors('POST', '/v1/jobs', 201, 'application/json', created), [], 'as documented');
  }
  const schema = (document.document.components.schemas.CreatedJob.allOf[1] as { required: string[] }).required;
  t.ok(schema.includes('webhook'), 'the document requires the block');
});
