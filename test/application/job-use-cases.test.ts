// The job use cases' checks before anything is committed, without HTTP: a key revoked meanwhile gets
// no slot, an Idempotency-Key's conflicts are refused (and its answer is its key's), and another
// key's job — of another tenant or the same — does not exist.
import t from 'tap';

import { IdempotencyConflict, IdempotencyInProgress, JobNotFound, KeyRevoked } from '../../src/application/application-errors.js';
import type { JobCreation } from '../../src/application/create-presigned-job.js';
import type { JobCreationConnection } from '../../src/application/create-presigned-job.js';
import { createPresignedJob, type CreatePresignedJobDeps } from '../../src/application/create-presigned-job.js';
import { findOwnJob } from '../../src/application/find-own-job.js';
import { claimIdempotencyKey } from '../../src/application/idempotency-claim.js';
import type { IdempotencyBegin, IdempotencyStore } from '../../src/store/idempotency-store.js';
import type { JobRecord } from '../../src/store/job-store.js';
import { FakeKeyStore } from '../helpers/fake-key-store.js';

const unused = () => {
  throw new Error('not expected in this test');
};

t.test('claimIdempotencyKey: a stored answer, a new claim, or a refusal', async (t) => {
  const claim = (begun: IdempotencyBegin) => claimIdempotencyKey({ begin: async () => begun }, { tenant: 't', keyId: 'key_a', key: 'k', fingerprint: 'f' });
  const response = { status: 201, headers: {}, body: '{}' };
  t.same(await claim({ state: 'completed', response }), response);
  t.equal(await claim({ state: 'started' }), null);
  await t.rejects(claim({ state: 'conflict' }), IdempotencyConflict);
  await t.rejects(claim({ state: 'in_progress' }), IdempotencyInProgress);
});

t.test("claimIdempotencyKey: the tenant's records, an answer given again only to the key it was given to", async (t) => {
  // One record per (tenant, key), compared by fingerprint, as the stores do.
  const records = new Map<string, string>();
  const store = {
    begin: async (tenant: string, key: string, fingerprint: string): Promise<IdempotencyBegin> => {
      const held = records.get(`${tenant}/${key}`);
      if (held === undefined) return (records.set(`${tenant}/${key}`, fingerprint), { state: 'started' });
      return held === fingerprint ? { state: 'completed', response: { status: 201, headers: {}, body: '{"id":"job_1"}' } } : { state: 'conflict' };
    },
  } as unknown as IdempotencyStore;
  const claim = (keyId: string, tenant = 't') => claimIdempotencyKey(store, { tenant, keyId, key: 'visit-1', fingerprint: 'f' });
  t.equal(await claim('key_a'), null, 'the first request holds the key');
  t.match(await claim('key_a'), { status: 201 }, 'its retry gets the answer');
  await t.rejects(claim('key_b'), IdempotencyConflict, 'another key of the tenant: refused, not told the answer');
  t.equal(await claim('key_b', 'other-tenant'), null, "another tenant's same key is a new request");
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
  await t.rejects(
    createPresignedJob({ key, requestId: 'req-1', idempotencyKey: 'k', creation, body: {}, log: { info: () => {} } }, connection, deps),
    KeyRevoked,
  );
  t.same(claimed, []);
});

t.test("findOwnJob: another key's job (another tenant's or the same's), an unknown one and an ended one are all not found", async (t) => {
  const job = { id: 'j1', tenant: 'a', keyId: 'key_a1', tombstoneUntilMs: null } as unknown as JobRecord;
  const ended = { id: 'j2', tenant: 'a', keyId: 'key_a1', tombstoneUntilMs: 5 } as unknown as JobRecord;
  const expired: string[] = [];
  const deps = {
    jobs: { get: async (id: string, tenant: string) => [job, ended].find((j) => j.id === id && j.tenant === tenant) ?? null },
    housekeeping: { expireUpload: async (j: JobRecord) => (expired.push(j.id), false) },
    clock: () => new Date(10),
  };
  const owner = { id: 'key_a1', tenant: 'a' };
  t.equal(await findOwnJob(deps, owner, 'j1'), job);
  const refusals = [
    findOwnJob(deps, { id: 'key_a2', tenant: 'a' }, 'j1'),
    findOwnJob(deps, { id: 'key_a1', tenant: 'b' }, 'j1'),
    findOwnJob(deps, { id: 'key_b1', tenant: 'b' }, 'j1'),
    findOwnJob(deps, owner, 'nope'),
    findOwnJob(deps, owner, 'j2'),
  ];
  const errors = await Promise.all(
    refusals.map((p) =>
      p.then(
        () => null,
        (error: unknown) => error,
      ),
    ),
  );
  for (const error of errors) t.type(error, JobNotFound);
  t.same(new Set(errors.map((e) => (e as Error).message)).size, 1, 'one message for all of them');
  t.same(expired, ['j1'], "nothing is done to another key's job before it is refused");
});
