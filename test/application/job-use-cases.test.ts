// The job use cases' checks before anything is committed, without HTTP: a key revoked meanwhile gets
// no slot, an Idempotency-Key's conflicts are refused, and another tenant's job does not exist.
import t from 'tap';
import { KeyRevoked, IdempotencyConflict, IdempotencyInProgress, JobNotFound } from '../../src/application/application-errors.js';
import { createPresignedJob, type CreatePresignedJobDeps } from '../../src/application/create-presigned-job.js';
import { findOwnJob } from '../../src/application/find-own-job.js';
import { claimIdempotencyKey } from '../../src/application/idempotency-claim.js';
import type { JobCreationConnection } from '../../src/application/job-creation-connection.js';
import type { JobCreation } from '../../src/application/job-creation.js';
import type { IdempotencyBegin } from '../../src/store/idempotency-store.js';
import type { JobRecord } from '../../src/store/job-store.js';
import { FakeKeyStore } from '../helpers/fake-key-store.js';

const unused = () => {
  throw new Error('not expected in this test');
};

t.test('claimIdempotencyKey: a stored answer, a new claim, or a refusal', async (t) => {
  const claim = (begun: IdempotencyBegin) => claimIdempotencyKey({ begin: async () => begun }, { tenant: 't', key: 'k', fingerprint: 'f' });
  const response = { status: 201, headers: {}, body: '{}' };
  t.same(await claim({ state: 'completed', response }), response);
  t.equal(await claim({ state: 'started' }), null);
  await t.rejects(claim({ state: 'conflict' }), IdempotencyConflict);
  await t.rejects(claim({ state: 'in_progress' }), IdempotencyInProgress);
});

t.test('createPresignedJob: a key revoked before the slot opens gets none, and no claim is made', async (t) => {
  const keys = new FakeKeyStore();
  const key = keys.add().record;
  await keys.revoke(key.id);
  const claimed: string[] = [];
  const deps = {
    keys,
    webhooks: { admit: unused },
    idempotency: { begin: async (_tenant: string, idempotencyKey: string) => (claimed.push(idempotencyKey), { state: 'started' }) },
    clock: () => new Date(0),
  } as unknown as CreatePresignedJobDeps;
  const connection: JobCreationConnection = { admitted: () => {}, embeddedUploadUrl: unused, jobCreated: unused };
  const creation = {
    request: { profile: 'default', webhookUrl: null },
    filename: 'a.wav',
    contentType: 'audio/wav',
    contentLength: 1,
  } as unknown as JobCreation;
  await t.rejects(createPresignedJob({ key, idempotencyKey: 'k', creation, body: {}, log: { info: () => {} } }, connection, deps), KeyRevoked);
  t.same(claimed, []);
});

t.test("findOwnJob: another tenant's job, an unknown one and an ended one are all not found", async (t) => {
  const job = { id: 'j1', tenant: 'a', tombstoneUntilMs: null } as unknown as JobRecord;
  const ended = { id: 'j2', tenant: 'a', tombstoneUntilMs: 5 } as unknown as JobRecord;
  const deps = {
    jobs: { get: async (id: string, tenant: string) => [job, ended].find((j) => j.id === id && j.tenant === tenant) ?? null },
    housekeeping: { expireUpload: async () => false },
    clock: () => new Date(10),
  };
  t.equal(await findOwnJob(deps, 'a', 'j1'), job);
  await t.rejects(findOwnJob(deps, 'b', 'j1'), JobNotFound);
  await t.rejects(findOwnJob(deps, 'a', 'nope'), JobNotFound);
  await t.rejects(findOwnJob(deps, 'a', 'j2'), JobNotFound);
});
