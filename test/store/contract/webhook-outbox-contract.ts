// The WebhookOutbox contract, run against every implementation (test/store/webhook-outbox.test.ts):
// events are written by the job's own `succeeded` transition (all or nothing), then claimed under
// leases, attempted, rescheduled, delivered, given up or abandoned; and delivery workers on separate
// connections never get the same event at once.
import type { Test } from 'tap';

import { jobSucceededEvent } from '../../../src/jobs/job-webhook-events.js';
import type { JobStore, NewJob, OutboxEvent } from '../../../src/store/job-store.js';
import type { WebhookOutbox } from '../../../src/store/webhook-outbox.js';
import { type MakeJobStores, openJobStores } from './job-store-contract.js';
import { failureOf } from './refusal.js';

const T0 = Date.parse('2031-01-02T03:04:05.000Z');
const retention = { resultExpiresAtMs: T0 + 9 * 3600_000, tombstoneUntilMs: T0 + 81 * 3600_000 };
const result = { resultPath: '/r/final.json', resultBytes: 10, contentType: 'application/json' };
const KEY = 'key_AAAAAAAAAAAA';

const newJob = (overrides: Partial<NewJob> = {}): NewJob => ({
  tenant: 'ten_a',
  keyId: KEY,
  status: 'accepted',
  request: {},
  audioPath: '/a/audio',
  audioSeconds: 90,
  webhookUrl: 'https://hooks.example.com/stt',
  webhookSecretVersion: 2,
  ...overrides,
});

export function eventFor(jobId: string, keyId = KEY): OutboxEvent {
  return jobSucceededEvent({
    jobId,
    keyId,
    secretVersion: 2,
    url: 'https://hooks.example.com/stt',
    pollUrl: `https://stt.example.com/v1/jobs/${jobId}`,
    nowMs: T0,
  });
}

async function runningJob(jobs: JobStore, overrides: Partial<NewJob> = {}, worker = 'w1') {
  const job = await jobs.create(newJob(overrides), new Date(T0));
  const claimed = await jobs.claimNext(worker, T0, 60_000);
  if (claimed?.id !== job.id) throw new Error('claim failed');
  return claimed;
}

/** A job that succeeded with its event in the outbox; returns the job id. */
async function succeededWithEvent(jobs: JobStore, keyId = KEY): Promise<string> {
  const job = await runningJob(jobs, { keyId });
  if (!(await jobs.succeed(job.id, 'w1', result, retention, T0, eventFor(job.id, keyId)))) throw new Error('succeed failed');
  return job.id;
}

export function webhookOutboxContract(t: Test, name: string, make: MakeJobStores): void {
  const open = (t: Test) => openJobStores(t, make);

  t.test(`${name}: WebhookOutbox contract`, async (t) => {
    t.test('succeed writes the event in its own transaction; a lost transition writes none', async (t) => {
      const { jobs, outbox } = await open(t);
      const job = await runningJob(jobs);
      t.equal(await jobs.succeed(job.id, 'someone-else', result, retention, T0, eventFor(job.id)), false, 'not the lease holder');
      t.equal(await outbox.forJob(job.id), null, 'no event for a transition that did not happen');

      const event = eventFor(job.id);
      t.equal(await jobs.succeed(job.id, 'w1', result, retention, T0 + 5, event), true);
      t.same(await outbox.forJob(job.id), {
        eventId: event.eventId,
        jobId: job.id,
        keyId: KEY,
        secretVersion: 2,
        url: 'https://hooks.example.com/stt',
        body: event.body,
        state: 'pending',
        attempts: 0,
        nextAttemptAtMs: T0 + 5,
        lastAttemptAtMs: null,
        lastStatus: null,
        createdAtMs: T0 + 5,
        redeliveryRequestedAtMs: null,
      });
      t.equal((await jobs.getById(job.id))!.webhookSecretVersion, 2, 'the pinned version is on the job');
      t.equal(await jobs.succeed(job.id, 'w1', result, retention, T0 + 6, eventFor(job.id)), false, 'a second success is refused');
    });

    t.test('if the event cannot be written, the job does not succeed either (one transaction)', async (t) => {
      const { jobs, outbox, insertDelivery } = await open(t);
      const job = await runningJob(jobs);
      // Make the insert fail: a row for this job already exists (job_id is UNIQUE).
      await insertDelivery({ eventId: 'evt_other', jobId: job.id, state: 'delivered' });
      t.ok(await failureOf(() => jobs.succeed(job.id, 'w1', result, retention, T0, eventFor(job.id))), 'succeed rejects');
      const after = (await jobs.getById(job.id))!;
      t.equal(after.status, 'running', 'the transition rolled back with the failed insert');
      t.equal(after.resultPath, null);
      t.equal(after.leaseOwner, 'w1');
      t.equal((await outbox.forJob(job.id))!.eventId, 'evt_other');
      t.ok(await jobs.succeed(job.id, 'w1', result, retention, T0), 'the store is usable afterwards');
    });

    t.test('claims: due first, one holder at a time, lease expiry, lost leases cannot record', async (t) => {
      const { jobs, outbox } = await open(t);
      const a = await succeededWithEvent(jobs);
      t.equal(await outbox.claimDue('d1', T0 - 1, 70_000), null, 'not due before its time');
      t.equal(await outbox.nextDueAtMs(), T0);

      const claimed = (await outbox.claimDue('d1', T0, 70_000))!;
      t.equal(claimed.jobId, a);
      t.equal(await outbox.claimDue('d2', T0 + 1000, 70_000), null, 'leased: nobody else may attempt it');
      const stolen = (await outbox.claimDue('d2', T0 + 70_000, 70_000))!;
      t.equal(stolen.eventId, claimed.eventId, 'an expired lease lets another worker take it');
      t.equal(
        await outbox.recordAttempt(claimed.eventId, 'd1', { delivered: true, summary: 'http 204', nextAttemptAtMs: null }, T0 + 70_001),
        false,
        'the first worker lost it',
      );
      t.equal(await outbox.recordAttempt(claimed.eventId, 'd2', { delivered: false, summary: 'http 500', nextAttemptAtMs: T0 + 130_000 }, T0 + 70_002), true);
      t.match(await outbox.forJob(a), { state: 'pending', attempts: 1, lastStatus: 'http 500', lastAttemptAtMs: T0 + 70_002, nextAttemptAtMs: T0 + 130_000 });
      t.equal(await outbox.claimDue('d1', T0 + 129_999, 70_000), null);
      const again = (await outbox.claimDue('d1', T0 + 130_000, 70_000))!;
      t.equal(await outbox.recordAttempt(again.eventId, 'd1', { delivered: true, summary: 'http 200', nextAttemptAtMs: null }, T0 + 130_001), true);
      t.match(await outbox.forJob(a), { state: 'delivered', attempts: 2, lastStatus: 'http 200', nextAttemptAtMs: null });
      t.equal(await outbox.claimDue('d1', T0 + 10 ** 9, 70_000), null, 'a delivered event is never attempted again');
      t.equal(await outbox.nextDueAtMs(), null);
    });

    t.test('the event due longest is claimed first', async (t) => {
      const { jobs, outbox } = await open(t);
      const first = await succeededWithEvent(jobs);
      const second = await succeededWithEvent(jobs);
      const claimed = (await outbox.claimDue('d1', T0, 70_000))!;
      t.equal(await outbox.recordAttempt(claimed.eventId, 'd1', { delivered: false, summary: 'http 503', nextAttemptAtMs: T0 + 10 }, T0 + 1), true);
      t.equal(await outbox.nextDueAtMs(), T0, 'the other one is still due at T0');
      t.equal((await outbox.claimDue('d1', T0 + 20, 70_000))?.jobId, claimed.jobId === first ? second : first, 'due at T0 before due at T0 + 10');
      t.equal((await outbox.claimDue('d1', T0 + 20, 70_000))?.jobId, claimed.jobId);
    });

    t.test('the last failed attempt gives up; a restart releases leases of the dead process', async (t) => {
      const { jobs, outbox } = await open(t);
      const a = await succeededWithEvent(jobs);
      const claimed = (await outbox.claimDue('d1', T0, 70_000))!;
      t.equal(await outbox.releaseLeasesOfDeadInstances(), 1);
      const reclaimed = (await outbox.claimDue('d2', T0 + 1, 70_000))!;
      t.equal(reclaimed.eventId, claimed.eventId, 'claimable at once after the restart, same event id');
      t.equal(reclaimed.attempts, 0, 'an attempt cut off by a crash is not counted');
      t.ok(await outbox.recordAttempt(reclaimed.eventId, 'd2', { delivered: false, summary: 'timeout after 10000 ms', nextAttemptAtMs: null }, T0 + 2));
      t.match(await outbox.forJob(a), { state: 'failed', attempts: 1, nextAttemptAtMs: null, lastStatus: 'timeout after 10000 ms' });
      t.equal(await outbox.claimDue('d2', T0 + 10 ** 9, 70_000), null, 'given up: never attempted again');
      t.equal(await outbox.releaseLeasesOfDeadInstances(), 0, 'nothing leased any more');
    });

    t.test("abandonForKey gives up the key's pending events without an attempt; other keys and settled events stay", async (t) => {
      const { jobs, outbox } = await open(t);
      const revoked = 'key_RRRRRRRRRRRR';
      const leased = await succeededWithEvent(jobs, revoked);
      const waiting = await succeededWithEvent(jobs, revoked);
      const delivered = await succeededWithEvent(jobs, revoked);
      const otherKey = await succeededWithEvent(jobs);
      // Settle `delivered` first, then lease whichever of the other two is claimed first.
      for (let claim = await outbox.claimDue('d1', T0, 70_000); claim; claim = await outbox.claimDue('d1', T0, 70_000)) {
        if (claim.jobId === delivered)
          t.ok(await outbox.recordAttempt(claim.eventId, 'd1', { delivered: true, summary: 'http 204', nextAttemptAtMs: null }, T0 + 1));
        else if (claim.jobId !== leased)
          t.ok(await outbox.recordAttempt(claim.eventId, 'd1', { delivered: false, summary: 'http 500', nextAttemptAtMs: T0 + 5 }, T0 + 1));
      }
      t.equal(await outbox.abandonForKey(revoked, 'key revoked', T0 + 2), 2);
      t.match(await outbox.forJob(leased), { state: 'failed', lastStatus: 'key revoked', nextAttemptAtMs: null, attempts: 0, lastAttemptAtMs: null });
      t.match(await outbox.forJob(waiting), { state: 'failed', lastStatus: 'key revoked', nextAttemptAtMs: null, attempts: 1, lastAttemptAtMs: T0 + 1 });
      t.match(await outbox.forJob(delivered), { state: 'delivered', lastStatus: 'http 204' });
      t.match(await outbox.forJob(otherKey), { state: 'pending', lastStatus: 'http 500' });
      t.equal(await outbox.releaseLeasesOfDeadInstances(), 0, 'the abandoned lease was cleared');
      t.equal(await outbox.abandonForKey(revoked, 'again', T0 + 3), 0, 'idempotent');
      t.equal(
        await outbox.recordAttempt((await outbox.forJob(leased))!.eventId, 'd1', { delivered: true, summary: 'late', nextAttemptAtMs: null }, T0 + 4),
        false,
        'a late attempt cannot revive it',
      );
    });

    t.test("recentForKeys: the keys' events newest first, bounded, metadata and type only", async (t) => {
      const { jobs, outbox } = await open(t);
      const mine = 'key_MMMMMMMMMMMM';
      const also = 'key_NNNNNNNNNNNN';
      const ids: string[] = [];
      for (const keyId of [mine, also, mine, 'key_OOOOOOOOOOOO', mine]) {
        const job = await runningJob(jobs, { keyId });
        // One millisecond apart, so "newest first" is the order of writing.
        t.ok(await jobs.succeed(job.id, 'w1', result, retention, T0 + ids.length, eventFor(job.id, keyId)));
        ids.push(job.id);
      }
      const listed = await outbox.recentForKeys([mine, also], 10);
      t.same(
        listed.map((d) => d.jobId),
        [ids[4], ids[2], ids[1], ids[0]],
        "newest first; another key's event is not there",
      );
      t.same(Object.keys(listed[0]).sort(), [
        'attempts',
        'createdAtMs',
        'eventId',
        'eventType',
        'jobId',
        'keyId',
        'lastAttemptAtMs',
        'lastStatus',
        'nextAttemptAtMs',
        'redeliveryRequestedAtMs',
        'state',
        'url',
      ]);
      t.equal(listed[0].eventType, 'transcription.job.succeeded');
      t.same(
        (await outbox.recentForKeys([mine, also], 2)).map((d) => d.jobId),
        [ids[4], ids[2]],
        'at most the limit',
      );
      t.same(await outbox.recentForKeys([], 10), [], 'no keys, no events');
    });

    t.test('redeliver: a settled event is due again for one attempt; a pending or unknown one is not', async (t) => {
      const { jobs, outbox } = await open(t);
      const a = await succeededWithEvent(jobs);
      const event = (await outbox.forJob(a))!;
      t.same(await outbox.forEvent(event.eventId), event, 'found by its event id');
      t.equal(await outbox.forEvent('evt_unknown'), null);
      t.equal(await outbox.redeliver(event.eventId, T0 + 1), false, 'pending: it has attempts to come');
      const claimed = (await outbox.claimDue('d1', T0, 70_000))!;
      t.ok(await outbox.recordAttempt(claimed.eventId, 'd1', { delivered: true, summary: 'http 204', nextAttemptAtMs: null }, T0 + 2));
      t.equal(await outbox.redeliver('evt_unknown', T0 + 3), false, 'unknown');
      t.equal(await outbox.redeliver(event.eventId, T0 + 10), true);
      t.match(await outbox.forEvent(event.eventId), { state: 'pending', attempts: 1, nextAttemptAtMs: T0 + 10, redeliveryRequestedAtMs: T0 + 10 });
      t.equal(await outbox.redeliver(event.eventId, T0 + 11), false, 'asked twice: once');
      t.equal(await outbox.claimDue('d1', T0 + 9, 70_000), null, 'not before its time');
      const again = (await outbox.claimDue('d1', T0 + 10, 70_000))!;
      t.equal(again.redeliveryRequestedAtMs, T0 + 10, 'the worker sees it is a redelivery');
      t.ok(await outbox.recordAttempt(again.eventId, 'd1', { delivered: false, summary: 'http 500', nextAttemptAtMs: null }, T0 + 12));
      t.match(await outbox.forEvent(event.eventId), { state: 'failed', attempts: 2, lastStatus: 'http 500', redeliveryRequestedAtMs: null });
      t.equal(await outbox.redeliver(event.eventId, T0 + 13), true, 'a failed event can be redelivered too');
      t.equal(await outbox.abandonForKey(KEY, 'key revoked', T0 + 14), 1, 'a queued redelivery of a key revoked meanwhile is given up');
      t.match(await outbox.forEvent(event.eventId), { state: 'failed', lastStatus: 'key revoked', redeliveryRequestedAtMs: null });
    });

    t.test("a job's settled event is deleted with the job's tombstone; a pending one once it settles", async (t) => {
      const { jobs, outbox } = await open(t);
      const [settled, redelivered, alsoSettled] = [await succeededWithEvent(jobs), await succeededWithEvent(jobs), await succeededWithEvent(jobs)];
      for (let claim = await outbox.claimDue('d1', T0, 70_000); claim; claim = await outbox.claimDue('d1', T0, 70_000)) {
        t.ok(await outbox.recordAttempt(claim.eventId, 'd1', { delivered: true, summary: 'http 204', nextAttemptAtMs: null }, T0 + 1));
      }
      const pendingEvent = (await outbox.forJob(redelivered))!.eventId;
      t.ok(await outbox.redeliver(pendingEvent, T0 + 2), 'asked again just before the end');
      t.equal(await jobs.deleteEndedTombstones(retention.tombstoneUntilMs - 1), 0);
      t.ok(await outbox.forJob(settled), 'kept while its job is');
      t.equal(await jobs.deleteEndedTombstones(retention.tombstoneUntilMs), 3);
      t.equal(await outbox.forJob(settled), null, 'gone with its job');
      t.equal(await outbox.forJob(alsoSettled), null);
      t.ok(await outbox.forEvent(pendingEvent), 'a redelivery still to come is kept');
      const claim = (await outbox.claimDue('d1', retention.tombstoneUntilMs, 70_000))!;
      t.equal(claim.eventId, pendingEvent, 'and attempted');
      t.ok(await outbox.recordAttempt(claim.eventId, 'd1', { delivered: true, summary: 'http 204', nextAttemptAtMs: null }, retention.tombstoneUntilMs + 1));
      t.equal(await jobs.deleteEndedTombstones(retention.tombstoneUntilMs + 2), 0, 'no job left');
      t.equal(await outbox.forEvent(pendingEvent), null, 'settled: gone on the next pass');
    });

    t.test('delivery workers on separate connections: every event is handed out exactly once', async (t) => {
      const { jobs, outbox, another } = await open(t);
      const secondOutbox = (await another()).outbox;
      const events = new Set<string>();
      for (let i = 0; i < 30; i++) events.add(await succeededWithEvent(jobs));
      const claimer = async (store: WebhookOutbox, worker: string) => {
        const mine: string[] = [];
        for (let event = await store.claimDue(worker, T0, 70_000); event; event = await store.claimDue(worker, T0, 70_000)) mine.push(event.jobId);
        return mine;
      };
      const claims = (await Promise.all([outbox, secondOutbox, outbox, secondOutbox, outbox, secondOutbox].map((store, i) => claimer(store, `d${i}`)))).flat();
      t.equal(claims.length, events.size, 'as many claims as events');
      t.same(new Set(claims), events, 'every event, none twice');
    });
  });
}
