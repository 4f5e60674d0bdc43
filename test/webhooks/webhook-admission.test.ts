// Request-time webhook rules on both job-creating routes (production settings: no loopback): every
// refused destination is 422 invalid_request before any job or file exists, and the message never
// echoes the URL. A name that passed at request time is re-resolved at delivery and refused when it
// now points inside (DNS rebinding).
import t from 'tap';

import { createJobRequest, jobBody } from '../helpers/jobs-client.js';
import { PUBLIC, REFUSED, SSRF_DNS } from '../helpers/ssrf-cases.js';
import { postTranscription } from '../helpers/test-service.js';
import { startWebhookService } from '../helpers/webhook-service.js';

t.test('refused destinations: 422 on both routes, nothing created, the URL not echoed', async (t) => {
  const setup = await startWebhookService(t, {
    loopback: false,
    dns: SSRF_DNS,
  });
  await setup.createSecret(Date.now());
  t.equal(REFUSED.at(-1)![1].length, 2049);
  for (const [name, url] of REFUSED) {
    const direct = await postTranscription(
      setup.svc.url,
      setup.key,
      { model: 'svc-medical-1', webhook_url: url },
      { data: setup.audio, name: 'visit.wav', type: 'audio/wav' },
    );
    const directBody = (await direct.json()) as { error: { code: string; message: string } };
    t.equal(direct.status, 422, `direct upload, ${name}: 422`);
    t.equal(directBody.error?.code, 'invalid_request');
    const jobs = await createJobRequest(setup.svc.url, setup.key, jobBody(setup.audio, { webhook_url: url }));
    const jobsBody = (await jobs.json()) as { error: { code: string; message: string } };
    t.equal(jobs.status, 422, `POST /v1/jobs, ${name}: 422`);
    t.equal(jobsBody.error?.code, 'invalid_request');
    for (const message of [directBody.error.message, jobsBody.error.message]) {
      t.notOk(/public\.test|private\.test|mixed\.test|nowhere\.test|127\.0|10\.0\.0\.5|fd00|169\.254/.test(message), `${name}: no echo (${message})`);
    }
  }
  t.same(await setup.svc.blobFiles(), { uploads: [], jobs: [] }, 'no audio kept for refused requests');

  // The control: a public name is admitted.
  const ok = await createJobRequest(setup.svc.url, setup.key, jobBody(setup.audio, { webhook_url: 'https://public.test/h' }));
  t.equal(ok.status, 201);
});

t.test('a key without an active signing secret cannot ask for a webhook', async (t) => {
  const setup = await startWebhookService(t, { loopback: false, dns: { 'public.test': { A: [PUBLIC] } } });
  const direct = await postTranscription(
    setup.svc.url,
    setup.key,
    { model: 'svc-medical-1', webhook_url: 'https://public.test/h' },
    {
      data: setup.audio,
      name: 'visit.wav',
      type: 'audio/wav',
    },
  );
  t.equal(direct.status, 422);
  t.match(await direct.json(), { error: { code: 'invalid_request', message: /signing secret/ } });
  const jobs = await createJobRequest(setup.svc.url, setup.key, jobBody(setup.audio, { webhook_url: 'https://public.test/h' }));
  t.equal(jobs.status, 422);
  t.match(await jobs.json(), { error: { code: 'invalid_request', message: /signing secret/ } });
  t.same(await setup.svc.blobFiles(), { uploads: [], jobs: [] });
  t.equal(setup.dns.queries('public.test'), 0, 'refused before any DNS lookup');
});

t.test('DNS rebinding: public when the request came, private at delivery: the attempt is refused', async (t) => {
  const setup = await startWebhookService(t, {
    loopback: false,
    dns: { 'rebind.test': { A: (n) => (n === 1 ? [PUBLIC] : ['10.0.0.7']) } },
  });
  await setup.createSecret(Date.now());
  const res = await postTranscription(
    setup.svc.url,
    setup.key,
    { model: 'svc-medical-1', response_format: 'json', language: 'en', webhook_url: 'https://rebind.test/h' },
    { data: setup.audio, name: 'visit.wav', type: 'audio/wav' },
  );
  t.equal(res.status, 202, 'public at request time: admitted');
  const job = (await res.json()) as { id: string };
  const delivery = await setup.waitForDelivery(job.id, (d) => d.attempts === 1);
  t.match(delivery, { state: 'pending', lastStatus: /^refused: .*non-public/ }, 'refused at delivery without connecting');
  t.equal(setup.dns.queries('rebind.test', 'A'), 2, 'resolved again for the attempt');
});
