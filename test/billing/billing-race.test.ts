// Requests racing for the last of a key's limits (src/store/usage-reservation.ts), on a real service
// (micro model, the test store pair; test/scale-out/billing-race.pg-s3.test.ts runs it on PostgreSQL
// and S3): inline requests sent all at once against an allowance, a spend cap and a prepaid credit
// that fit a few of them. Each admitted request reserves its measured length before decoding, so the
// bound is exact: what is admitted fits the limit, and nothing is metered beyond it (overshoot 0 s).
// Jobs reserve their file's length at completion (a direct upload's at its creation): the same bound.
import { readFile } from 'node:fs/promises';

import t, { type Test } from 'tap';

import { billingPeriodAt } from '../../src/billing/billing-period.js';
import type { UsageStanding } from '../../src/store/usage-record.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

const HOUR_MICROS_PER_SECOND = 3_600_000_000; // a price of 1 currency unit per audio-second
const RACERS = 16;
let svc: TestService;
let wav: Uint8Array;

t.before(async () => {
  svc = await startTestService({ SVC_RATE_LIMIT_PER_MINUTE: '100000', SVC_INLINE_BOUNDARY_SECONDS: '3.5' });
  wav = await readFile(await speechWav(1));
});
t.teardown(() => svc?.close());

/** RACERS one-second requests at once: how many were answered, how many refused with 402, and what was metered. */
async function race(key: string): Promise<{ answered: number; refused: number; batchSeconds: number; cost: number; creditLeft: number | null }> {
  const statuses = await Promise.all(
    Array.from({ length: RACERS }, async () => {
      const res = await postTranscription(svc.url, key, { model: 'svc-medical-1', response_format: 'json' }, { data: wav, name: 'a.wav', type: 'audio/wav' });
      await res.arrayBuffer();
      return res.status;
    }),
  );
  const usage = (await (await fetch(`${svc.url}/v1/usage`, { headers: auth(key) })).json()) as {
    batch_seconds: number;
    keys: Array<{ cost: number; credit_left: number | null }>;
  };
  return {
    answered: statuses.filter((s) => s === 200).length,
    refused: statuses.filter((s) => s === 402).length,
    batchSeconds: usage.batch_seconds,
    cost: usage.keys[0].cost,
    creditLeft: usage.keys[0].credit_left,
  };
}

function assertExact(t: Test, outcome: Awaited<ReturnType<typeof race>>, fits: number) {
  t.equal(outcome.answered + outcome.refused, RACERS, 'every request answered 200 or 402');
  t.equal(outcome.answered, fits, `admitted exactly the ${fits} that fit`);
  t.equal(outcome.batchSeconds, fits, 'metered: what was admitted, nothing beyond the limit');
}

t.test('an allowance that fits 4 of 16 racing requests admits 4 and meters 4 s', async (t) => {
  const key = await svc.createKey({ tenant: 'race-allowance', plan: 'builder' });
  await svc.stores.billing.updateKey(key.id, { overrides: { batchIncludedMs: 4_000 } });
  assertExact(t, await race(key.key), 4);
});

t.test('a spend cap that fits 3 charged seconds admits 3 and charges exactly the cap', async (t) => {
  const key = await svc.createKey({ tenant: 'race-cap', plan: 'payg' });
  await svc.stores.billing.updateKey(key.id, { overrides: { batchIncludedMs: 0, batchPriceMicros: HOUR_MICROS_PER_SECOND, spendCapMicros: 3_000_000 } });
  const outcome = await race(key.key);
  assertExact(t, outcome, 3);
  t.equal(outcome.cost, 3);
});

t.test('a prepaid credit of 5 seconds admits 5 and leaves none, never less', async (t) => {
  const key = await svc.createKey({ tenant: 'race-credit', plan: 'payg' });
  await svc.stores.billing.updateKey(key.id, { overrides: { batchIncludedMs: 0, batchPriceMicros: HOUR_MICROS_PER_SECOND }, addCreditMicros: 5_000_000 });
  const outcome = await race(key.key);
  assertExact(t, outcome, 5);
  t.equal(outcome.creditLeft, 0);
});

t.test('jobs completed at once against an allowance that fits 3 of 8: 3 accepted, 5 refused and still waiting with their files, 3 s metered', async (t) => {
  const key = await svc.createKey({ tenant: 'race-jobs', plan: 'builder' });
  await svc.stores.billing.updateKey(key.id, { overrides: { batchIncludedMs: 3_000 } });
  const jobs = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const job = await createJob(svc.url, key.key, jobBody(wav));
      t.equal((await uploadFile(job, wav)).status, 204);
      return job;
    }),
  );
  // Queued and running jobs count: none of them is recorded before the others are decided.
  const statuses = await Promise.all(jobs.map(async (job) => (await completeJob(job, key.key)).status));
  t.equal(statuses.filter((s) => s === 202).length, 3, 'accepted: exactly what fits');
  t.equal(statuses.filter((s) => s === 402).length, 5);
  const ends = await Promise.all(
    jobs.map(async (job, i) => (statuses[i] === 202 ? (await waitForEnd(job.poll_url, key.key)).status : (await poll(job.poll_url, key.key)).body.status)),
  );
  t.same(ends.sort(), [...Array(5).fill('awaiting_upload'), ...Array(3).fill('succeeded')]);
  const usage = (await (await fetch(`${svc.url}/v1/usage`, { headers: auth(key.key) })).json()) as { batch_seconds: number };
  t.equal(usage.batch_seconds, 3, 'metered: the accepted jobs, nothing beyond the allowance');
});

t.test('direct uploads that become jobs, racing for an allowance that fits 2 of 6: 2 jobs, 4 refused', async (t) => {
  const key = await svc.createKey({ tenant: 'race-direct', plan: 'builder' });
  const long = await readFile(await speechWav(4, { seed: 5 }));
  await svc.stores.billing.updateKey(key.id, { overrides: { batchIncludedMs: 8_000 } });
  const answers = await Promise.all(
    Array.from({ length: 6 }, async () => {
      const res = await postTranscription(
        svc.url,
        key.key,
        { model: 'svc-medical-1', response_format: 'json' },
        { data: long, name: 'a.wav', type: 'audio/wav' },
      );
      return { status: res.status, body: (await res.json()) as { poll_url?: string } };
    }),
  );
  t.same(answers.map((a) => a.status).sort(), [202, 202, 402, 402, 402, 402], '4 s is beyond the inline boundary: two jobs, four refusals');
  for (const answer of answers.filter((a) => a.status === 202)) t.equal((await waitForEnd(answer.body.poll_url!, key.key)).status, 'succeeded');
  const usage = (await (await fetch(`${svc.url}/v1/usage`, { headers: auth(key.key) })).json()) as { batch_seconds: number };
  t.equal(usage.batch_seconds, 8);
});

t.test('requests whose clients hang up at any point leave no reservation behind', async (t) => {
  const key = await svc.createKey({ tenant: 'race-hang-up', plan: 'builder' });
  await svc.stores.billing.updateKey(key.id, { overrides: { batchIncludedMs: 3_600_000 } });
  const long = await readFile(await speechWav(8, { seed: 3 }));
  // Hung up before the upload, while decoding, after the answer: admitted work is metered or released.
  await Promise.all(
    [0, 5, 20, 60, 150, 400, 1_000, 3_000].map(async (afterMs) => {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), afterMs);
      try {
        const res = await postTranscription(
          svc.url,
          key.key,
          { model: 'svc-medical-1', response_format: 'json' },
          { data: long, name: 'a.wav', type: 'audio/wav' },
          {},
          undefined,
          abort.signal,
        );
        await res.arrayBuffer();
      } catch {
        // The client's own abort.
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const period = billingPeriodAt(Date.now(), await svc.stores.billing.periodStartDay()).label;
  const counted = async () => {
    let standing: UsageStanding | undefined;
    const holder = { instance: svc.service.instanceId };
    await svc.stores.usage.reserve({ key: 'probe', tenant: key.tenant, keyId: key.id, period, pool: 'batch', audioMs: 0, holder, atMs: Date.now() }, (s) => {
      standing = s;
      return { refused: 'probe' };
    });
    return standing!.tenantUsedMs.batch;
  };
  const recorded = async () => (await svc.stores.usage.standing(key.tenant, key.id, period)).tenantUsedMs.batch;
  // A client that hung up has not stopped the server: its request may still reserve and become a job
  // after the client gave up, so nothing reserved at one moment proves nothing. Settled means: nothing
  // beyond what was recorded for a quiet spell, the jobs (8 s is beyond the inline boundary) having
  // ended and had their reservations recorded, which on a slow box under load takes a while each.
  const deadline = Date.now() + 120_000;
  const quietMs = 3_000;
  let settledSince = Number.POSITIVE_INFINITY;
  while (Date.now() < deadline) {
    const settled = (await counted()) === (await recorded());
    settledSince = settled ? Math.min(settledSince, Date.now()) : Number.POSITIVE_INFINITY;
    if (Date.now() - settledSince >= quietMs) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.equal(await counted(), await recorded(), 'reserved beyond what was recorded: nothing, once the requests ended');
});
