// A service whose tenants' data keys are wrapped by AWS KMS (SVC_KMS_*), through the real
// @aws-sdk/client-kms against the loopback KMS stand-in (test/helpers/kms-server.ts; real AWS KMS is
// not reachable here): a job's content is sealed and reads back, its data key's row names the KMS key;
// with KMS down a request that needs a new data key gets 503 with Retry-After, not 500, and succeeds
// once KMS is back; a start without the KMS key that wrapped the data keys is refused, naming it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import t from 'tap';

import { MissingMasterKeyError } from '../../src/store/sealing-error.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, createJobRequest, jobBody, waitForEnd } from '../helpers/jobs-client.js';
import { startKmsServer } from '../helpers/kms-server.js';
import { postTranscription, refusedStart, startTestService } from '../helpers/test-service.js';

t.test('data keys wrapped by KMS: a job seals and reads, an outage is a 503, a missing key refuses the start', async (t) => {
  const kms = await startKmsServer();
  t.teardown(() => kms.close());
  const arn = kms.createKey();
  const dataDir = join(t.testdir(), 'data');
  const env = (keyId: string, previous = '') => ({
    SVC_DATA_DIR: dataDir,
    SVC_KMS_KEY_ID: keyId,
    SVC_KMS_ENDPOINT: kms.endpoint,
    ...(previous ? { SVC_KMS_PREVIOUS_KEY_IDS: previous } : {}),
    SVC_INLINE_BOUNDARY_SECONDS: '5',
    SVC_JOB_CHUNK_SECONDS: '5',
  });

  const svc = await startTestService(env(arn));
  const res = await postTranscription(
    svc.url,
    svc.key,
    { model: 'svc-medical-1', response_format: 'json' },
    { data: await readFile(await speechWav(12)), name: 'visit.wav', type: 'audio/wav' },
  );
  t.equal(res.status, 202, 'a job');
  const job = (await res.json()) as { id: string; poll_url: string };
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
  const result = await fetch(`${svc.url}/v1/jobs/${job.id}/result`, { headers: auth(svc.key) });
  t.equal(result.status, 200);
  t.match(await result.json(), { text: String }, 'the sealed result reads back');
  t.same(await svc.stores.tenantKeys.masterKeyIdsInUse(), [`kms:${arn}`], 'the data key row names the KMS key');
  t.ok((kms.calls.Encrypt ?? 0) >= 1, 'KMS wrapped it');

  // KMS down: a tenant's first data key cannot be made. The request is refused as retryable, nothing stored.
  const { key } = await svc.createKey({ tenant: 'clinic-while-kms-down' });
  const body = jobBody(new Uint8Array(1000));
  await kms.stop();
  const refused = await createJobRequest(svc.url, key, body);
  t.equal(refused.status, 503, 'unavailable, not a server error');
  t.ok(Number(refused.headers.get('retry-after')) > 0, 'with Retry-After');
  t.match(await refused.json(), { error: { code: 'service_unavailable' } });
  await kms.start();
  t.equal((await createJobRequest(svc.url, key, body)).status, 201, 'KMS back: the same request succeeds');
  await svc.close();

  // Another KMS key alone cannot unwrap them: the start is refused, naming the one it needs.
  const other = kms.createKey();
  const refusal = await refusedStart(env(other));
  t.type(refusal, MissingMasterKeyError);
  t.same((refusal as MissingMasterKeyError).keyIds, [`kms:${arn}`]);
  t.match((refusal as Error).message, /SVC_KMS_PREVIOUS_KEY_IDS/, 'and says where to give it');

  // With the old key as previous it starts, and the result still reads.
  const again = await startTestService(env(other, arn));
  t.teardown(() => again.close());
  const reread = await fetch(`${again.url}/v1/jobs/${job.id}/result`, { headers: auth(svc.key) });
  t.equal(reread.status, 200);
});
