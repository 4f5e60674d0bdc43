// The JobStore contract, run against every implementation (test/store/job-store.test.ts): create and
// owner-scoped reads, the lifecycle's conditional transitions, upload slots, revocation of a key's
// slots, retention; and the races that many worker and API processes on one database run into,
// between stores on separate connections: claims, succeed against fail, complete against complete
// and against the upload sweeper, and sweeps run twice at once. (On SQLite the "concurrent" calls
// run one after another, so there these cases check the outcome rules only; on PostgreSQL they race.)
// Decoration: a succeeded job whose result a worker still decorates under a lease (succeed with
// `decoration`, claimDecoration, endDecoration), and how leases, dead instances and retention treat it.
// Metering: the usage event a success records with it, and the passages to review its decoration adds.
import type { Test } from 'tap';

import { type InstanceRegistry, leaseOwnerOf } from '../../../src/store/instance-registry.js';
import type { DecorationOutcome, JobRecord, JobStore, NewJob, OutboxEvent, ReleasedBlobs, Retention } from '../../../src/store/job-store.js';
import type { UsageLedger } from '../../../src/store/usage-ledger.js';
import { type MeteredWork, NO_SAFETY_EVENTS } from '../../../src/store/usage-record.js';
import type { WebhookOutbox } from '../../../src/store/webhook-outbox.js';
import { usageEvent } from '../../helpers/usage-events.js';

export interface JobStores {
  jobs: JobStore;
  outbox: WebhookOutbox;
  /** The usage ledger of the same database (succeed and endDecoration write to it). */
  usage: UsageLedger;
}

export interface JobStoresHarness extends JobStores {
  /** Stores on the same database through their own connection(s), as another process would have. */
  another(): Promise<JobStores>;
  /** Closes the first connection and returns a job store on a new one, as a restarted process would have. */
  reopen(): Promise<JobStore>;
  /** The instance registry of the same database. */
  instances: InstanceRegistry;
  /** A job store whose uploads belong to `instanceId`. */
  ownedBy(instanceId: string): JobStore;
  /** Inserts a raw `webhook_deliveries` row (the outbox contract uses it to make an insert collide). */
  insertDelivery(row: { eventId: string; jobId: string; state: 'pending' | 'delivered' | 'failed' }): Promise<void>;
  close(): Promise<void>;
}

export type MakeJobStores = (t: Test) => Promise<JobStoresHarness>;

/** Opens a harness for one case, closed when the case ends. */
export async function openJobStores(t: Test, make: MakeJobStores): Promise<JobStoresHarness> {
  const harness = await make(t);
  t.teardown(() => harness.close());
  return harness;
}

const KEY = 'key_AAAAAAAAAAAA';
const retention = { resultExpiresAtMs: 10_000_000, tombstoneUntilMs: 20_000_000 };
const result = (path: string) => ({ resultPath: path, resultBytes: 10, contentType: 'application/json' });
const upload = { bytes: 10, expiresAtMs: 5000, completeByMs: 9000 };
const internalError = { code: 'internal_error', message: 'x' } as const;

const newJob = (tenant: string, overrides: Partial<NewJob> = {}): NewJob => ({
  tenant,
  keyId: KEY,
  status: 'accepted',
  request: { response_format: 'verbose_json', language: { mode: 'explicit', tag: 'en' }, vocabulary: ['metoprolol'] },
  audioPath: '/data/blobs/jobs/abc.audio',
  audioSeconds: 93.5,
  webhookUrl: null,
  ...overrides,
});
const slotJob = (overrides: Partial<NewJob> = {}) => newJob('ten_a', { status: 'awaiting_upload', audioPath: null, audioSeconds: null, upload, ...overrides });
const eventFor = (jobId: string): OutboxEvent => ({
  eventId: `evt_${jobId}`,
  keyId: KEY,
  secretVersion: 1,
  url: 'https://hooks.example.com/x',
  body: `{"job":"${jobId}"}`,
});
const count = <T>(items: T[], item: T) => items.filter((i) => i === item).length;
const iso = (ms: number) => new Date(ms).toISOString();
const byId = (released: ReleasedBlobs[]) => [...released].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/**
 * A job `worker` holds at `at` with audio `/a/<n>.audio` and a provisional result `/r/<n>.partial-1`,
 * ready to succeed. No other job may be runnable (it is claimed as the oldest one).
 */
async function heldWithPartial(t: Test, jobs: JobStore, worker: string, n: string, at: number): Promise<JobRecord> {
  const job = await jobs.create(newJob('ten_a', { audioPath: `/a/${n}.audio` }), new Date(at));
  t.equal((await jobs.claimNext(worker, at, 60_000))?.id, job.id, `${n}: claimed`);
  const chunk = { progress: { chunk: 1 }, completedAudioSeconds: 30, audioSeconds: 93.5, partialPath: `/r/${n}.partial-1` };
  t.ok(await jobs.commitChunk(job.id, worker, chunk, at), `${n}: a chunk committed`);
  t.equal((await jobs.claimNext(worker, at, 60_000))?.id, job.id, `${n}: claimed again`);
  return job;
}

/** heldWithPartial, then succeeded at `at` with result `/r/<n>.result`, left to `worker` to decorate for `leaseMs`. */
async function decorating(
  t: Test,
  jobs: JobStore,
  worker: string,
  n: string,
  at: number,
  options: { leaseMs?: number; retention?: Retention; event?: OutboxEvent } = {},
): Promise<JobRecord> {
  const job = await heldWithPartial(t, jobs, worker, n, at);
  const { leaseMs = 60_000, retention: kept = retention, event = null } = options;
  t.ok(await jobs.succeed(job.id, worker, result(`/r/${n}.result`), kept, at, event, { leaseMs }), `${n}: succeeded, to decorate`);
  return (await jobs.getById(job.id))!;
}

const decorated = (path: string, overrides: Partial<DecorationOutcome> = {}): DecorationOutcome => ({
  status: 'done',
  result: { resultPath: path, resultBytes: 42, contentType: 'application/json' },
  ...overrides,
});

/** A job's usage event, as the job worker meters it (src/jobs/job-usage.ts): 90 s of audio, two suspect insertions. */
const jobUsage = (jobId: string): MeteredWork => ({
  event: usageEvent({
    eventKey: `job:${jobId}`,
    tenant: 'ten_a',
    keyId: KEY,
    atMs: 2000,
    diarization: true,
    audioMs: 90_000,
    safety: { ...NO_SAFETY_EVENTS, suspectInsertions: 2 },
  }),
  terms: { includedMs: null, priceMicrosPerHour: null },
});

export function jobStoreContract(t: Test, name: string, make: MakeJobStores): void {
  const open = (t: Test) => openJobStores(t, make);

  t.test(`${name}: JobStore contract`, async (t) => {
    t.test('create returns the stored record; get finds it for its tenant only; durable across a reopen', async (t) => {
      const { jobs, reopen } = await open(t);
      const now = new Date('2030-05-06T07:08:09.000Z');
      const job = await jobs.create(newJob('ten_a', { webhookUrl: 'https://example.com/hook' }), now);
      t.match(job.id, /^job_[0-9A-Za-z]{22}$/);
      t.match(job, {
        id: job.id,
        tenant: 'ten_a',
        keyId: KEY,
        status: 'accepted',
        model: 'svc-medical-1',
        request: newJob('ten_a').request,
        audioPath: '/data/blobs/jobs/abc.audio',
        audioSeconds: 93.5,
        webhookUrl: 'https://example.com/hook',
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        errorCode: null,
        errorMessage: null,
        leaseOwner: null,
        stalledClaims: 0,
        readyAtMs: now.getTime(),
        uploadState: 'none',
        resultRevision: 0,
      });
      t.same(await jobs.get(job.id, 'ten_a'), job);
      t.equal(await jobs.get(job.id, 'ten_b'), null, 'another tenant cannot see it');
      t.equal(await jobs.get('job_missing', 'ten_a'), null);
      t.same(await jobs.getById(job.id), job);
      t.same(await (await reopen()).get(job.id, 'ten_a'), job, 'durable across a reopen');
    });

    t.test('ids are unique; awaiting_upload jobs have no audio yet', async (t) => {
      const { jobs } = await open(t);
      const ids = new Set<string>();
      for (let i = 0; i < 200; i++) ids.add((await jobs.create(newJob('ten_a'))).id);
      t.equal(ids.size, 200);
      const waiting = await jobs.create(newJob('ten_a', { status: 'awaiting_upload', audioPath: null, audioSeconds: null }));
      t.equal((await jobs.get(waiting.id, 'ten_a'))?.audioPath, null);
      t.equal((await jobs.get(waiting.id, 'ten_a'))?.status, 'awaiting_upload');
    });

    t.test('referencesBlob tells the blob sweeper which audio is in use', async (t) => {
      const { jobs } = await open(t);
      await jobs.create(newJob('ten_a', { audioPath: '/blobs/jobs/one.audio' }));
      t.equal(await jobs.referencesBlob('/blobs/jobs/one.audio'), true);
      t.equal(await jobs.referencesBlob('/blobs/jobs/two.audio'), false);
    });

    t.test('jobCounts: jobs per status, and the claimable ones exactly as claimNext sees them', async (t) => {
      const { jobs } = await open(t);
      const empty = await jobs.jobCounts(1000);
      t.same(empty, { byStatus: { awaiting_upload: 0, accepted: 0, running: 0, succeeded: 0, failed: 0 }, claimable: 0 });
      await jobs.create(slotJob(), new Date(500));
      const a = await jobs.create(newJob('ten_a'), new Date(1000));
      await jobs.create(newJob('ten_b'), new Date(1001));
      await jobs.create(newJob('ten_b'), new Date(1002));
      t.match(await jobs.jobCounts(2000), { byStatus: { awaiting_upload: 1, accepted: 3, running: 0 }, claimable: 3 });
      t.equal((await jobs.claimNext('w1', 2000, 60_000))!.id, a.id);
      t.match(await jobs.jobCounts(2000), { byStatus: { accepted: 2, running: 1 }, claimable: 2 }, 'a leased job is not waiting');
      t.match(await jobs.jobCounts(62_001), { byStatus: { running: 1 }, claimable: 3 }, 'a lease that ran out is waiting again');
      await jobs.succeed(a.id, 'w1', result('/r/a.result'), retention, 3000);
      t.match(await jobs.jobCounts(3000), { byStatus: { accepted: 2, running: 0, succeeded: 1 }, claimable: 2 });
    });

    t.test('lifecycle: claims are exclusive, only the lease holder moves a job, oldest ready first', async (t) => {
      const { jobs } = await open(t);
      const a = await jobs.create(newJob('ten_a'), new Date(1000));
      const b = await jobs.create(newJob('ten_a'), new Date(2000));

      const first = (await jobs.claimNext('w1', 3000, 60_000))!;
      t.equal(first.id, a.id, 'the job that waited longest');
      t.equal(first.status, 'running');
      t.equal((await jobs.claimNext('w2', 3000, 60_000))!.id, b.id, 'a leased job is not claimed again');
      t.equal(await jobs.claimNext('w3', 3000, 60_000), null, 'nothing else runnable');

      // A chunk committed sends the job to the back of the queue.
      t.ok(await jobs.commitChunk(a.id, 'w1', { progress: { k: 1 }, completedAudioSeconds: 300, audioSeconds: 7200, partialPath: '/r/a.partial-1' }, 4000));
      t.notOk(
        await jobs.commitChunk(a.id, 'w1', { progress: {}, completedAudioSeconds: 600, audioSeconds: null, partialPath: null }, 4001),
        'no lease, no commit',
      );
      t.ok(await jobs.releaseLease(b.id, 'w2', 4500));
      t.equal((await jobs.claimNext('w1', 5000, 60_000))!.id, b.id, 'b (ready at 2000) before a (ready again at 4000)');
      const again = (await jobs.claimNext('w2', 5000, 60_000))!;
      t.match(again, { id: a.id, resultRevision: 1, completedAudioSeconds: 300, audioSeconds: 7200, partialPath: '/r/a.partial-1', progress: { k: 1 } });

      // A lease that ran out is reclaimed, counted as a stall; the old holder can no longer finish.
      const taken = (await jobs.claimNext('w3', 5000 + 60_001, 60_000))!;
      t.equal(taken.id, b.id);
      t.equal(taken.stalledClaims, 1);
      t.notOk(await jobs.heartbeat(b.id, 'w1', 70_000, 60_000), 'the old holder lost it');
      t.ok(await jobs.heartbeat(b.id, 'w3', 70_000, 60_000), 'the new holder extends it');
      t.notOk(await jobs.succeed(b.id, 'w1', result('/r/b.result'), retention, 70_000));
      t.ok(await jobs.succeed(b.id, 'w3', result('/r/b.result'), retention, 70_000));
      t.notOk(await jobs.succeed(b.id, 'w3', result('/r/b.result'), retention, 70_001), 'never completed twice');
      t.equal(await jobs.fail(b.id, { workerId: 'w3' }, internalError, retention, 70_002), null, 'nor failed after success');
      t.match(await jobs.getById(b.id), { status: 'succeeded', audioPath: null, resultPath: '/r/b.result', leaseOwner: null });

      // A restart releases what the dead process held.
      t.same(await jobs.releaseWorkOfDeadInstances(80_000), { leases: 1, uploads: 0 });
      t.match(await jobs.claimNext('w9', 80_000, 60_000), { id: a.id, stalledClaims: 1 });
      t.same(await jobs.fail(a.id, { workerId: 'w9' }, { code: 'audio_undecodable', message: 'm' }, retention, 81_000), {
        id: a.id,
        paths: ['/data/blobs/jobs/abc.audio', '/r/a.partial-1'],
      });
      t.ok(await jobs.referencesBlob('/r/b.result'));
      t.notOk(await jobs.referencesBlob('/r/a.partial-1'));

      // Retention: results expire, then tombstones end.
      t.same(await jobs.expireResults(10_000_000), [{ id: b.id, paths: ['/r/b.result'] }]);
      t.same(await jobs.expireResults(10_000_000), [], 'each result once');
      t.equal(await jobs.deleteEndedTombstones(19_999_999), 0);
      t.equal(await jobs.deleteEndedTombstones(20_000_000), 2);
    });

    t.test('only the work of instances no longer registered is released', async (t) => {
      const { jobs, outbox, instances, ownedBy } = await open(t);
      await instances.register('inst_live', 'worker', 0, 30_000);
      await instances.register('inst_dead', 'worker', 0, 30_000);
      const [live, dead] = [await jobs.create(newJob('ten_a'), new Date(1000)), await jobs.create(newJob('ten_a'), new Date(1001))];
      t.equal((await jobs.claimNext(leaseOwnerOf('inst_live', 0), 2000, 60_000))!.id, live.id);
      t.equal((await jobs.claimNext(leaseOwnerOf('inst_dead', 0), 2000, 60_000))!.id, dead.id);
      const [liveSlot, deadSlot] = [await jobs.create(slotJob(), new Date(1000)), await jobs.create(slotJob(), new Date(1000))];
      t.ok(await ownedBy('inst_live').beginUpload(liveSlot.id, 2000));
      t.ok(await ownedBy('inst_dead').beginUpload(deadSlot.id, 2000));
      for (const [id, owner] of [
        [live.id, 'inst_live'],
        [dead.id, 'inst_dead'],
      ]) {
        await jobs.claimNext('nobody', 2000, 60_000);
        t.ok(await jobs.succeed(id, leaseOwnerOf(owner, 0), result(`/r/${id}`), retention, 2100, eventFor(id)));
      }
      const liveEvent = (await outbox.claimDue(leaseOwnerOf('inst_live', 'webhooks'), 3000, 60_000))!;
      const deadEvent = (await outbox.claimDue(leaseOwnerOf('inst_dead', 'webhooks'), 3000, 60_000))!;
      t.same(await jobs.releaseWorkOfDeadInstances(3000), { leases: 0, uploads: 0 }, 'both registered: nothing released');
      t.equal(await outbox.releaseLeasesOfDeadInstances(), 0);

      const [running] = [await jobs.create(newJob('ten_a'), new Date(1002))];
      t.equal((await jobs.claimNext(leaseOwnerOf('inst_dead', 1), 3000, 60_000))!.id, running.id);
      t.same(await instances.reapDead(3000, { allBut: 'inst_live' }), ['inst_dead']);
      t.same(await jobs.releaseWorkOfDeadInstances(3000), { leases: 1, uploads: 1 });
      t.same(await jobs.releaseWorkOfDeadInstances(3000), { leases: 0, uploads: 0 }, 'once');
      t.equal(await outbox.releaseLeasesOfDeadInstances(), 1);
      t.match(
        await jobs.claimNext(leaseOwnerOf('inst_live', 1), 3001, 60_000),
        { id: running.id, stalledClaims: 1 },
        "the dead instance's job is claimable at once",
      );
      t.match(await jobs.getById(deadSlot.id), { uploadState: 'empty' }, 'its upload slot reopened');
      t.match(await jobs.getById(liveSlot.id), { uploadState: 'receiving' }, "the live instance's upload goes on");
      t.equal((await outbox.claimDue(leaseOwnerOf('inst_live', 'webhooks'), 3002, 60_000))?.eventId, deadEvent.eventId);
      t.ok(
        await outbox.recordAttempt(
          liveEvent.eventId,
          leaseOwnerOf('inst_live', 'webhooks'),
          { delivered: true, summary: 'http 204', nextAttemptAtMs: null },
          3003,
        ),
        "the live instance's lease held",
      );
    });

    t.test('succeed with decoration: the job succeeds with its event (once), keeps its audio and provisional result, the worker keeps the lease', async (t) => {
      const { jobs, outbox } = await open(t);
      const job = await heldWithPartial(t, jobs, 'w1', 'd', 1000);
      t.ok(await jobs.succeed(job.id, 'w1', result('/r/d.result'), retention, 2000, eventFor(job.id), { leaseMs: 30_000 }));
      const after = (await jobs.getById(job.id))!;
      t.match(after, {
        status: 'succeeded',
        resultPath: '/r/d.result',
        resultBytes: 10,
        resultContentType: 'application/json',
        resultExpiresAtMs: retention.resultExpiresAtMs,
        tombstoneUntilMs: retention.tombstoneUntilMs,
        finishedAtMs: 2000,
        updatedAt: iso(2000),
        errorCode: null,
        audioPath: '/a/d.audio',
        partialPath: '/r/d.partial-1',
        resultRevision: 1,
        progress: { chunk: 1 },
        decoration: 'processing',
        decorationAttempts: 1,
        leaseOwner: 'w1',
        leaseExpiresAtMs: 32_000,
      });
      t.notOk(
        await jobs.succeed(job.id, 'w1', result('/r/d2.result'), retention, 2001, eventFor(`${job.id}-again`), { leaseMs: 30_000 }),
        'never completed twice',
      );
      t.equal(await jobs.fail(job.id, { workerId: 'w1' }, internalError, retention, 2001), null, 'nor failed by its decorator');
      t.same(await jobs.getById(job.id), after, 'unchanged');
      t.equal((await outbox.forJob(job.id))?.eventId, `evt_${job.id}`, 'its event is in the outbox');
      t.equal((await outbox.claimDue('hooks', 2002, 60_000))?.eventId, `evt_${job.id}`, 'due at once');
      t.equal(await outbox.claimDue('hooks', 2002, 60_000), null, 'one event');
      t.match(await jobs.jobCounts(2002), { byStatus: { succeeded: 1, running: 0 }, claimable: 0 });
      t.equal(await jobs.claimNext('w2', 40_000, 60_000), null, 'never runnable work again, even past its lease');
      for (const path of ['/a/d.audio', '/r/d.partial-1', '/r/d.result']) t.ok(await jobs.referencesBlob(path), `${path} still referenced`);
    });

    t.test('succeed with decoration may record what the decoration reads: the final carry-over, a new provisional revision', async (t) => {
      const { jobs } = await open(t);
      const job = await heldWithPartial(t, jobs, 'w1', 'q', 1000);
      const carry = { final: true, speech: [[0, 1.5]] };
      t.ok(await jobs.succeed(job.id, 'w1', result('/r/q.result'), retention, 2000, null, { leaseMs: 30_000, progress: carry, partialPath: '/r/q.partial-2' }));
      t.match(await jobs.getById(job.id), {
        status: 'succeeded',
        decoration: 'processing',
        decorationAttempts: 1,
        progress: carry,
        partialPath: '/r/q.partial-2',
        resultRevision: 2,
        audioPath: '/a/q.audio',
        leaseOwner: 'w1',
        leaseExpiresAtMs: 32_000,
      });
      t.notOk(await jobs.referencesBlob('/r/q.partial-1'), "the previous provisional result is the caller's to delete");
      t.same(await jobs.endDecoration(job.id, 'w1', decorated('/r/q.result-1'), 3000), { id: job.id, paths: ['/a/q.audio', '/r/q.partial-2', '/r/q.result'] });
    });

    t.test('succeed without decoration: as before, nothing to decorate', async (t) => {
      const { jobs } = await open(t);
      t.match(await jobs.create(newJob('ten_b'), new Date(500)), { decoration: null, decorationAttempts: 0 }, 'a new job has none');
      t.equal((await jobs.claimNext('w0', 600, 60_000))?.tenant, 'ten_b');
      const job = await heldWithPartial(t, jobs, 'w1', 'p', 1000);
      t.ok(await jobs.succeed(job.id, 'w1', result('/r/p.result'), retention, 2000, null, null));
      const after = (await jobs.getById(job.id))!;
      t.match(after, {
        status: 'succeeded',
        resultPath: '/r/p.result',
        audioPath: null,
        partialPath: null,
        leaseOwner: null,
        leaseExpiresAtMs: null,
        decoration: null,
        decorationAttempts: 0,
      });
      t.equal(await jobs.claimDecoration('w2', 1_000_000, 60_000), null, 'nothing to decorate');
      t.equal(await jobs.endDecoration(job.id, 'w1', decorated('/r/p.result-1'), 3000), null, 'no decoration to end');
      t.notOk(await jobs.heartbeat(job.id, 'w1', 3000, 60_000), 'no lease to extend');
      t.same(await jobs.getById(job.id), after, 'unchanged');
    });

    t.test('endDecoration by the holder: the result replaced, audio, provisional and old result released, the lease with them', async (t) => {
      const { jobs } = await open(t);
      const job = await decorating(t, jobs, 'w1', 'e', 1000);
      t.ok(await jobs.heartbeat(job.id, 'w1', 30_000, 60_000), 'the decorator extends its lease');
      t.equal((await jobs.getById(job.id))!.leaseExpiresAtMs, 90_000);
      const released = await jobs.endDecoration(job.id, 'w1', decorated('/r/e.result-1'), 40_000);
      t.same(released, { id: job.id, paths: ['/a/e.audio', '/r/e.partial-1', '/r/e.result'] });
      const after = (await jobs.getById(job.id))!;
      t.match(after, {
        status: 'succeeded',
        decoration: null,
        decorationAttempts: 1,
        resultPath: '/r/e.result-1',
        resultBytes: 42,
        resultContentType: 'application/json',
        audioPath: null,
        partialPath: null,
        leaseOwner: null,
        leaseExpiresAtMs: null,
        updatedAt: iso(40_000),
        finishedAtMs: 1000,
        resultExpiresAtMs: retention.resultExpiresAtMs,
      });
      t.equal(await jobs.endDecoration(job.id, 'w1', decorated('/r/e.result-2'), 40_001), null, 'ended once');
      t.notOk(await jobs.heartbeat(job.id, 'w1', 40_002, 60_000), 'its lease is gone');
      t.same(await jobs.getById(job.id), after, 'unchanged');
      t.equal(await jobs.claimDecoration('w2', 1_000_000, 60_000), null, 'nothing left to decorate');
      for (const path of ['/a/e.audio', '/r/e.partial-1', '/r/e.result']) t.notOk(await jobs.referencesBlob(path), `${path} released`);
      t.ok(await jobs.referencesBlob('/r/e.result-1'));

      // Given up, the result rewritten at the same path: that path is kept.
      const other = await decorating(t, jobs, 'w1', 'u', 50_000);
      const unavailable = decorated('/r/u.result', {
        status: 'unavailable',
        result: { resultPath: '/r/u.result', resultBytes: 11, contentType: 'text/plain' },
      });
      t.same(await jobs.endDecoration(other.id, 'w1', unavailable, 51_000), { id: other.id, paths: ['/a/u.audio', '/r/u.partial-1'] });
      t.match(await jobs.getById(other.id), {
        decoration: 'unavailable',
        resultPath: '/r/u.result',
        resultBytes: 11,
        resultContentType: 'text/plain',
        audioPath: null,
        partialPath: null,
        leaseOwner: null,
        leaseExpiresAtMs: null,
        updatedAt: iso(51_000),
      });
      t.equal(await jobs.endDecoration(other.id, 'w1', decorated('/r/u.result-1'), 51_001), null, 'an unavailable decoration is over');
      t.equal(await jobs.claimDecoration('w2', 1_000_000, 60_000), null, 'and never claimed');
      t.ok(await jobs.referencesBlob('/r/u.result'));
    });

    t.test("succeed records the job's usage event with it, once; endDecoration adds the passages to review to it, once, by the holder", async (t) => {
      const { jobs, usage } = await open(t);
      const job = await heldWithPartial(t, jobs, 'w1', 'm', 1000);
      const metered = jobUsage(job.id);
      t.ok(await jobs.succeed(job.id, 'w1', result('/r/m.result'), retention, 2000, null, { leaseMs: 60_000 }, metered));
      t.notOk(await jobs.succeed(job.id, 'w1', result('/r/m.result'), retention, 2001, null, { leaseMs: 60_000 }, metered), 'succeeded once');
      const review = (passages: number) => decorated('/r/m.result-1', { reviewRequired: { usageEventKey: metered.event.eventKey, passages } });
      t.equal(await jobs.endDecoration(job.id, 'w2', review(5), 3000), null, 'not the holder: nothing added');
      t.ok(await jobs.endDecoration(job.id, 'w1', review(3), 3000));
      t.equal(await jobs.endDecoration(job.id, 'w1', review(4), 3001), null, 'ended once: nothing added');
      t.match(await usage.report({ period: '2026-05' }), [
        { keyId: KEY, route: 'job', units: 1, audioMs: 90_000, safety: { ...NO_SAFETY_EVENTS, suspectInsertions: 2, reviewRequired: 3 } },
      ]);
      t.same((await usage.standing('ten_a', KEY, '2026-05')).tenantUsedMs, { batch: 90_000, realtime: 0 }, 'in the totals decisions read');
    });

    t.test('endDecoration by anyone but the holder, or of a job not being decorated, changes nothing', async (t) => {
      const { jobs } = await open(t);
      const job = await decorating(t, jobs, 'w1', 'n', 1000, { leaseMs: 10_000 });
      const before = (await jobs.getById(job.id))!;
      t.equal(await jobs.endDecoration(job.id, 'w2', decorated('/r/n.result-1'), 2000), null, 'not the holder');
      t.equal(await jobs.endDecoration('job_missing', 'w1', decorated('/r/n.result-1'), 2000), null, 'no such job');
      t.notOk(await jobs.heartbeat(job.id, 'w2', 2000, 60_000), 'nor does another worker extend the lease');
      t.same(await jobs.getById(job.id), before, 'unchanged');

      // The lease ran out and another worker took the decoration: the old holder cannot end it.
      t.match(await jobs.claimDecoration('w2', 11_000, 60_000), { id: job.id, leaseOwner: 'w2', decorationAttempts: 2 });
      const claimed = (await jobs.getById(job.id))!;
      t.equal(await jobs.endDecoration(job.id, 'w1', decorated('/r/n.result-1'), 12_000), null, 'the old holder lost it');
      t.notOk(await jobs.heartbeat(job.id, 'w1', 12_000, 60_000));
      t.same(await jobs.getById(job.id), claimed, 'unchanged');

      const running = await jobs.create(newJob('ten_a'), new Date(13_000));
      t.equal((await jobs.claimNext('w3', 13_000, 60_000))?.id, running.id);
      const runningBefore = (await jobs.getById(running.id))!;
      t.equal(await jobs.endDecoration(running.id, 'w3', decorated('/r/x.result-1'), 14_000), null, 'a running job is not being decorated');
      t.same(await jobs.getById(running.id), runningBefore, 'unchanged');
    });

    t.test('claimDecoration: only a decoration whose lease is free, oldest expiry first, never other succeeded jobs', async (t) => {
      const { jobs } = await open(t);
      const a = await decorating(t, jobs, 'w1', 'a', 1000, { leaseMs: 10_000 });
      const b = await decorating(t, jobs, 'w1', 'b', 2000, { leaseMs: 5000 });
      const plain = await heldWithPartial(t, jobs, 'w1', 'c', 3000);
      t.ok(await jobs.succeed(plain.id, 'w1', result('/r/c.result'), retention, 3000));
      t.equal(await jobs.claimDecoration('w2', 6999, 60_000), null, 'both leases live');

      const first = (await jobs.claimDecoration('w2', 7000, 60_000))!;
      t.match(first, {
        id: b.id,
        status: 'succeeded',
        decoration: 'processing',
        decorationAttempts: 2,
        leaseOwner: 'w2',
        leaseExpiresAtMs: 67_000,
        audioPath: '/a/b.audio',
        partialPath: '/r/b.partial-1',
        resultPath: '/r/b.result',
        finishedAtMs: 2000,
      });
      t.same(await jobs.getById(b.id), first, 'the returned record is the stored one');
      t.equal(await jobs.claimDecoration('w3', 7000, 60_000), null, 'a claimed decoration is not claimed again, and a is still leased');
      t.notOk(await jobs.heartbeat(b.id, 'w1', 8000, 60_000), 'its first decorator lost it');
      t.ok(await jobs.heartbeat(b.id, 'w2', 8000, 120_000), 'its new one extends it (to 128 000)');

      // At 200 000 both leases have run out: a's (11 000) before b's (128 000).
      t.match(await jobs.claimDecoration('w3', 200_000, 60_000), { id: a.id, decorationAttempts: 2, leaseOwner: 'w3' });
      t.match(await jobs.claimDecoration('w4', 200_000, 60_000), { id: b.id, decorationAttempts: 3, leaseOwner: 'w4' });
      t.equal(await jobs.claimDecoration('w5', 200_000, 60_000), null, 'the undecorated job is never claimed');
      t.match(await jobs.getById(plain.id), { leaseOwner: null, decoration: null, decorationAttempts: 0 });
      t.equal(await jobs.claimNext('w5', 200_000, 60_000), null, 'nor is any of them runnable work');
    });

    t.test('releaseLease gives a decoration back: claimable at once, before decorations whose lease ran out', async (t) => {
      const { jobs } = await open(t);
      const a = await decorating(t, jobs, 'w1', 'a', 1000, { leaseMs: 1000 });
      const b = await decorating(t, jobs, 'w1', 'b', 3000, { leaseMs: 60_000 });
      t.notOk(await jobs.releaseLease(b.id, 'w2', 4000), 'only by its holder');
      t.ok(await jobs.releaseLease(b.id, 'w1', 4000));
      t.match(await jobs.getById(b.id), { status: 'succeeded', decoration: 'processing', leaseOwner: null, leaseExpiresAtMs: null, audioPath: '/a/b.audio' });
      t.equal(await jobs.endDecoration(b.id, 'w1', decorated('/r/b.result-1'), 4000), null, 'given back: no longer its to end');
      t.match(await jobs.claimDecoration('w2', 4000, 60_000), { id: b.id, decorationAttempts: 2, leaseOwner: 'w2' }, 'never leased since: first');
      t.match(await jobs.claimDecoration('w3', 4000, 60_000), { id: a.id, decorationAttempts: 2, leaseOwner: 'w3' });
      t.equal(await jobs.claimDecoration('w4', 4000, 60_000), null);
    });

    t.test('releaseWorkOfDeadInstances frees the decoration leases of dead instances only', async (t) => {
      const { jobs, instances } = await open(t);
      await instances.register('inst_live', 'worker', 0, 30_000);
      await instances.register('inst_dead', 'worker', 0, 30_000);
      const live = await decorating(t, jobs, leaseOwnerOf('inst_live', 0), 'l', 1000);
      const dead = await decorating(t, jobs, leaseOwnerOf('inst_dead', 0), 'd', 2000);
      t.same(await jobs.releaseWorkOfDeadInstances(3000), { leases: 0, uploads: 0 }, 'both registered: nothing released');
      t.equal(await jobs.claimDecoration('w', 3000, 60_000), null);

      t.same(await instances.reapDead(3000, { allBut: 'inst_live' }), ['inst_dead']);
      t.same(await jobs.releaseWorkOfDeadInstances(3000), { leases: 1, uploads: 0 });
      t.same(await jobs.releaseWorkOfDeadInstances(3000), { leases: 0, uploads: 0 }, 'once');
      t.match(await jobs.getById(dead.id), {
        leaseOwner: leaseOwnerOf('inst_dead', 0),
        leaseExpiresAtMs: 0,
        decoration: 'processing',
        audioPath: '/a/d.audio',
      });
      t.match(
        await jobs.claimDecoration(leaseOwnerOf('inst_live', 1), 3001, 60_000),
        { id: dead.id, decorationAttempts: 2 },
        "the dead instance's decoration is claimable at once",
      );
      t.equal(await jobs.claimDecoration(leaseOwnerOf('inst_live', 2), 3001, 60_000), null, "the live instance's is still held");
      t.match(await jobs.getById(live.id), { leaseOwner: leaseOwnerOf('inst_live', 0), leaseExpiresAtMs: 61_000 });
      t.ok(await jobs.heartbeat(live.id, leaseOwnerOf('inst_live', 0), 4000, 60_000), 'and its holder goes on');
    });

    t.test('a redacted copy of the audio: recorded with the success, kept through a decoration, released with the result once', async (t) => {
      const { jobs } = await open(t);
      const early = { resultExpiresAtMs: 50_000, tombstoneUntilMs: 100_000 };
      const plain = await heldWithPartial(t, jobs, 'w1', 'ra', 1000);
      t.ok(await jobs.succeed(plain.id, 'w1', { ...result('/r/ra.result'), redactedAudioPath: '/r/ra.redacted-audio' }, early, 1000));
      t.match(await jobs.getById(plain.id), { resultPath: '/r/ra.result', redactedAudioPath: '/r/ra.redacted-audio', audioPath: null });
      const held = await heldWithPartial(t, jobs, 'w1', 'rd', 2000);
      t.ok(await jobs.succeed(held.id, 'w1', { ...result('/r/rd.result'), redactedAudioPath: '/r/rd.redacted-audio' }, early, 2000, null, { leaseMs: 60_000 }));
      t.same(await jobs.endDecoration(held.id, 'w1', decorated('/r/rd.result-1'), 3000), {
        id: held.id,
        paths: ['/a/rd.audio', '/r/rd.partial-1', '/r/rd.result'],
      });
      t.match(await jobs.getById(held.id), { resultPath: '/r/rd.result-1', redactedAudioPath: '/r/rd.redacted-audio' }, 'the decoration keeps it');
      const none = await heldWithPartial(t, jobs, 'w1', 'rn', 4000);
      t.ok(await jobs.succeed(none.id, 'w1', result('/r/rn.result'), early, 4000));
      t.match(await jobs.getById(none.id), { redactedAudioPath: null }, 'none asked: none');
      for (const path of ['/r/ra.redacted-audio', '/r/rd.redacted-audio']) t.ok(await jobs.referencesBlob(path), `${path} referenced`);
      t.same(
        byId(await jobs.expireResults(50_000)),
        byId([
          { id: plain.id, paths: ['/r/ra.result', '/r/ra.redacted-audio'] },
          { id: held.id, paths: ['/r/rd.result-1', '/r/rd.redacted-audio'] },
          { id: none.id, paths: ['/r/rn.result'] },
        ]),
      );
      t.same(await jobs.expireResults(60_000), [], 'each blob once');
      t.match(await jobs.getById(plain.id), { resultPath: null, redactedAudioPath: null });
      for (const path of ['/r/ra.redacted-audio', '/r/rd.redacted-audio']) t.notOk(await jobs.referencesBlob(path), `${path} not referenced`);
    });

    t.test('an unredacted transcript: provisional with each chunk, final with the success, kept by a decoration, released once', async (t) => {
      const { jobs } = await open(t);
      const early = { resultExpiresAtMs: 50_000, tombstoneUntilMs: 100_000 };
      const chunk = (n: string, revision: number) => ({
        progress: {},
        completedAudioSeconds: 30 * revision,
        audioSeconds: 93.5,
        partialPath: `/r/${n}.partial-${revision}`,
        unredactedPath: `/r/${n}.unredacted-${revision}`,
      });
      const failing = await jobs.create(newJob('ten_a', { audioPath: '/a/uf.audio' }), new Date(1000));
      t.equal((await jobs.claimNext('w1', 1000, 60_000))?.id, failing.id);
      t.ok(await jobs.commitChunk(failing.id, 'w1', chunk('uf', 1), 1000));
      t.match(await jobs.getById(failing.id), { unredactedPath: '/r/uf.unredacted-1' });
      t.ok(await jobs.referencesBlob('/r/uf.unredacted-1'), 'the provisional copy is referenced');
      t.equal((await jobs.claimNext('w1', 1000, 60_000))?.id, failing.id);
      t.ok(await jobs.commitChunk(failing.id, 'w1', { ...chunk('uf', 2), unredactedPath: null }, 1001), 'a chunk without a new copy');
      t.match(await jobs.getById(failing.id), { unredactedPath: '/r/uf.unredacted-1' }, 'keeps the one it has');
      t.equal((await jobs.claimNext('w1', 1002, 60_000))?.id, failing.id);
      t.same(await jobs.fail(failing.id, { workerId: 'w1' }, internalError, early, 1003), {
        id: failing.id,
        paths: ['/a/uf.audio', '/r/uf.partial-2', '/r/uf.unredacted-1'],
      });
      t.match(await jobs.getById(failing.id), { unredactedPath: null }, 'a failure releases it');

      const plain = await heldWithPartial(t, jobs, 'w1', 'ua', 2000);
      t.ok(await jobs.succeed(plain.id, 'w1', { ...result('/r/ua.result'), unredactedPath: '/r/ua.unredacted' }, early, 2000));
      t.match(await jobs.getById(plain.id), { resultPath: '/r/ua.result', unredactedPath: '/r/ua.unredacted' });
      const held = await heldWithPartial(t, jobs, 'w1', 'ud', 3000);
      t.ok(await jobs.succeed(held.id, 'w1', { ...result('/r/ud.result'), unredactedPath: '/r/ud.unredacted' }, early, 3000, null, { leaseMs: 60_000 }));
      t.same(await jobs.endDecoration(held.id, 'w1', decorated('/r/ud.result-1'), 3001), {
        id: held.id,
        paths: ['/a/ud.audio', '/r/ud.partial-1', '/r/ud.result'],
      });
      t.match(await jobs.getById(held.id), { unredactedPath: '/r/ud.unredacted' }, 'the decoration keeps it');
      t.same(
        byId(await jobs.expireResults(50_000)),
        byId([
          { id: plain.id, paths: ['/r/ua.result', '/r/ua.unredacted'] },
          { id: held.id, paths: ['/r/ud.result-1', '/r/ud.unredacted'] },
        ]),
      );
      t.match(await jobs.getById(plain.id), { unredactedPath: null });
      for (const path of ['/r/ua.unredacted', '/r/ud.unredacted']) t.notOk(await jobs.referencesBlob(path), `${path} not referenced`);
    });

    t.test('expireResults ends a pending decoration: its audio and provisional result go with the result', async (t) => {
      const { jobs } = await open(t);
      const early = { resultExpiresAtMs: 50_000, tombstoneUntilMs: 100_000 };
      // The decorator's lease is still live when the result expires.
      const job = await decorating(t, jobs, 'w1', 'x', 1000, { leaseMs: 100_000, retention: early });
      const plain = await heldWithPartial(t, jobs, 'w1', 'y', 2000);
      t.ok(await jobs.succeed(plain.id, 'w1', result('/r/y.result'), early, 2000));
      t.same(await jobs.expireResults(49_999), [], 'not before retention ends');
      t.same(
        byId(await jobs.expireResults(50_000)),
        byId([
          { id: job.id, paths: ['/r/x.result', '/a/x.audio', '/r/x.partial-1'] },
          { id: plain.id, paths: ['/r/y.result'] },
        ]),
      );
      t.match(await jobs.getById(job.id), {
        status: 'succeeded',
        resultPath: null,
        audioPath: null,
        partialPath: null,
        decoration: null,
        decorationAttempts: 1,
        leaseOwner: null,
        leaseExpiresAtMs: null,
      });
      t.same(await jobs.expireResults(60_000), [], 'each blob once');
      t.equal(await jobs.claimDecoration('w2', 200_000, 60_000), null, 'an expired result is never claimed for decoration');
      t.equal(await jobs.endDecoration(job.id, 'w1', decorated('/r/x.result-1'), 60_000), null, 'its decorator finds the decoration gone');
      t.notOk(await jobs.heartbeat(job.id, 'w1', 60_000, 60_000));
      for (const path of ['/r/x.result', '/a/x.audio', '/r/x.partial-1', '/r/x.result-1']) t.notOk(await jobs.referencesBlob(path), `${path} not referenced`);
    });

    t.test('decoration claimers on separate connections: every decoration is claimed exactly once', async (t) => {
      const { jobs, another } = await open(t);
      const second = (await another()).jobs;
      const created = new Set<string>();
      for (let i = 0; i < 16; i++) created.add((await decorating(t, jobs, 'w-first', `c${i}`, 1000 + i, { leaseMs: 1 })).id);
      const claimer = async (store: JobStore, worker: string) => {
        const mine: string[] = [];
        for (let job = await store.claimDecoration(worker, 5000, 60_000); job; job = await store.claimDecoration(worker, 5000, 60_000)) mine.push(job.id);
        return mine.map((id) => ({ id, worker }));
      };
      const claims = (await Promise.all([jobs, second, jobs, second, jobs, second].map((store, i) => claimer(store, `w${i}`)))).flat();
      t.equal(claims.length, created.size, 'as many claims as decorations');
      t.same(new Set(claims.map((c) => c.id)), created, 'every decoration, none twice');
      for (const { id, worker } of claims) {
        const job = (await jobs.getById(id))!;
        if (job.leaseOwner !== worker || job.decorationAttempts !== 2)
          t.fail(`${id}: held by ${job.leaseOwner} (attempts ${job.decorationAttempts}), claimed by ${worker}`);
      }
    });

    t.test("the old decorator's endDecoration racing a claimer after its lease ran out: exactly one wins", async (t) => {
      const { jobs, another } = await open(t);
      const second = (await another()).jobs;
      for (let round = 0; round < 10; round++) {
        const job = await decorating(t, jobs, 'w-old', `race${round}`, 1000 + round, { leaseMs: 1 });
        const calls = [
          async () => ((await jobs.endDecoration(job.id, 'w-old', decorated(`/r/race${round}.result-1`), 5000)) ? 'ended' : null),
          async () => ((await second.claimDecoration('w-new', 5000, 60_000)) ? 'claimed' : null),
        ];
        const winners = (await Promise.all((round % 2 === 0 ? calls : calls.reverse()).map((call) => call()))).filter((w) => w !== null);
        t.equal(winners.length, 1, `round ${round}: one winner (${winners.join(', ')})`);
        const after = (await jobs.getById(job.id))!;
        if (winners[0] === 'ended') t.match(after, { decoration: null, leaseOwner: null, resultPath: `/r/race${round}.result-1`, decorationAttempts: 1 });
        else t.match(after, { decoration: 'processing', leaseOwner: 'w-new', resultPath: `/r/race${round}.result`, decorationAttempts: 2 });
      }
    });

    t.test('upload slots: one upload at a time, before the form expires, then complete once', async (t) => {
      const { jobs } = await open(t);
      const job = await jobs.create(slotJob(), new Date(1000));
      t.equal((await jobs.complete(job.id, 'ten_a', 1500)).outcome, 'not_uploaded');
      t.equal((await jobs.complete(job.id, 'ten_b', 1500)).outcome, 'not_found', 'owner-scoped');
      t.notOk(await jobs.beginUpload(job.id, 5000), 'expired form');
      // A file already in the bucket is collected at complete, which stays possible until complete-by.
      t.ok(await jobs.beginUpload(job.id, 5000, { until: 'complete_by' }), 'after the form, before complete-by');
      await jobs.abandonUpload(job.id);
      t.notOk(await jobs.beginUpload(job.id, 9000, { until: 'complete_by' }), 'not at complete-by');
      t.ok(await jobs.beginUpload(job.id, 2000));
      t.notOk(await jobs.beginUpload(job.id, 2000), 'one at a time');
      await jobs.abandonUpload(job.id);
      t.ok(await jobs.beginUpload(job.id, 2100), 'a failed upload reopens the slot');
      t.same(await jobs.releaseWorkOfDeadInstances(2200), { leases: 0, uploads: 1 }, 'so does a crash');
      t.ok(await jobs.beginUpload(job.id, 2300));
      t.ok(await jobs.storeUpload(job.id, '/data/blobs/jobs/x.audio', 2400));
      t.notOk(await jobs.beginUpload(job.id, 2500), 'used');
      t.same(await jobs.overdueUploads(9000), [job.id]);
      const accepted = await jobs.complete(job.id, 'ten_a', 3000);
      t.match(accepted, { outcome: 'accepted', job: { status: 'accepted', readyAtMs: 3000, audioPath: '/data/blobs/jobs/x.audio' } });
      t.equal((await jobs.complete(job.id, 'ten_a', 3001)).outcome, 'already');
      t.same(await jobs.overdueUploads(9000), [], 'completed jobs do not expire');
    });

    t.test('closeUploadSlotsOfKey: every open slot of the key fails at once, a receiving one included; nothing else moves', async (t) => {
      const { jobs } = await open(t);
      const slot = (keyId: string) => jobs.create(slotJob({ keyId }), new Date(1000));
      const revoked = 'key_RRRRRRRRRRRR';
      const empty = await slot(revoked);
      const receiving = await slot(revoked);
      const stored = await slot(revoked);
      const otherKeys = await slot('key_OOOOOOOOOOOO');
      const accepted = await jobs.create(newJob('ten_a', { keyId: revoked }), new Date(1000));
      t.ok(await jobs.beginUpload(receiving.id, 2000));
      t.ok((await jobs.beginUpload(stored.id, 2000)) && (await jobs.storeUpload(stored.id, '/data/blobs/jobs/s.audio', 2100)));

      const retentions: string[] = [];
      const released = await jobs.closeUploadSlotsOfKey(
        revoked,
        { code: 'job_expired', message: 'revoked' },
        (job) => {
          retentions.push(job.id);
          return { resultExpiresAtMs: 10_000, tombstoneUntilMs: 20_000 };
        },
        3000,
      );
      t.same(released.map((r) => r.id).sort(), [empty.id, receiving.id, stored.id].sort());
      t.same(released.find((r) => r.id === stored.id)!.paths, ['/data/blobs/jobs/s.audio'], 'the stored audio is handed back for deletion');
      t.same(retentions.sort(), released.map((r) => r.id).sort(), 'retention asked per job');
      for (const id of [empty.id, receiving.id, stored.id]) {
        t.match(await jobs.getById(id), {
          status: 'failed',
          errorCode: 'job_expired',
          errorMessage: 'revoked',
          audioPath: null,
          resultExpiresAtMs: 10_000,
          finishedAtMs: 3000,
        });
      }
      t.notOk(await jobs.storeUpload(receiving.id, '/data/blobs/jobs/late.audio', 3100), 'the upload that was streaming cannot land');
      t.equal((await jobs.getById(otherKeys.id))!.status, 'awaiting_upload', "another key's slot stays open");
      t.equal((await jobs.getById(accepted.id))!.status, 'accepted', 'accepted work is not touched');
      t.same(
        await jobs.closeUploadSlotsOfKey(revoked, { code: 'job_expired', message: 'revoked' }, () => ({ resultExpiresAtMs: 0, tombstoneUntilMs: 0 }), 4000),
        [],
        'idempotent',
      );
    });

    t.test('claimers on separate connections: every job is claimed exactly once', async (t) => {
      const { jobs, another } = await open(t);
      const second = (await another()).jobs;
      const created = new Set<string>();
      for (let i = 0; i < 40; i++) created.add((await jobs.create(newJob('ten_a'), new Date(1000 + i))).id);
      // Six workers, three per connection, each claiming until nothing is left.
      const claimer = async (store: JobStore, worker: string) => {
        const mine: string[] = [];
        for (let job = await store.claimNext(worker, 5000, 60_000); job; job = await store.claimNext(worker, 5000, 60_000)) mine.push(job.id);
        return mine.map((id) => ({ id, worker }));
      };
      const claims = (await Promise.all([jobs, second, jobs, second, jobs, second].map((store, i) => claimer(store, `w${i}`)))).flat();
      t.equal(claims.length, created.size, 'as many claims as jobs');
      t.same(new Set(claims.map((c) => c.id)), created, 'every job, none twice');
      for (const { id, worker } of claims) {
        const job = (await jobs.getById(id))!;
        if (job.leaseOwner !== worker || job.stalledClaims !== 0)
          t.fail(`${id}: held by ${job.leaseOwner} (stalled ${job.stalledClaims}), claimed by ${worker}`);
      }
    });

    t.test("the lease holder's succeed racing a stale worker and a fail: exactly one wins; the winner's event, and only it, is in the outbox", async (t) => {
      const { jobs, outbox, another } = await open(t);
      const second = (await another()).jobs;
      const outcomes: string[] = [];
      for (let round = 0; round < 20; round++) {
        const job = await jobs.create(newJob('ten_a'), new Date(1000));
        t.equal((await jobs.claimNext('w-old', 2000, 1000))?.id, job.id);
        // w-old's lease ran out and w-new took the job; w-old still thinks it holds it.
        t.equal((await second.claimNext('w-new', 3000, 60_000))?.id, job.id);
        const calls = [
          async () => ((await jobs.succeed(job.id, 'w-new', result(`/r/${round}`), retention, 4000, eventFor(job.id))) ? 'holder succeeded' : null),
          async () => ((await second.succeed(job.id, 'w-old', result('/r/stale'), retention, 4000, eventFor(`${job.id}-stale`))) ? 'stale succeeded' : null),
          async () =>
            (await second.fail(job.id, { workerId: 'w-old' }, internalError, retention, 4000, eventFor(`${job.id}-stale-failed`))) ? 'stale failed' : null,
          async () => ((await second.fail(job.id, { status: 'running' }, internalError, retention, 4000, eventFor(`${job.id}-failed`))) ? 'failed' : null),
        ];
        // Both orders of issue, so on PostgreSQL either side may get the row first.
        const winners = (await Promise.all((round % 2 === 0 ? calls : calls.reverse()).map((call) => call()))).filter((w) => w !== null);
        t.equal(winners.length, 1, `round ${round}: one winner (${winners.join(', ')})`);
        outcomes.push(...winners);
        const after = (await jobs.getById(job.id))!;
        const event = await outbox.forJob(job.id);
        if (winners[0] === 'holder succeeded') {
          t.match(after, { status: 'succeeded', resultPath: `/r/${round}`, errorCode: null, leaseOwner: null });
          t.equal(event?.eventId, `evt_${job.id}`, 'its event is in the outbox');
        } else {
          t.match(after, { status: 'failed', resultPath: null, errorCode: 'internal_error', audioPath: null });
          t.equal(event?.eventId, `evt_${job.id}-failed`, 'the failure event, and only it, is in the outbox');
        }
      }
      t.equal(count(outcomes, 'stale succeeded') + count(outcomes, 'stale failed'), 0, 'a stale worker never moves the job');
    });

    t.test('concurrent complete calls: one accepted, the others already', async (t) => {
      const { jobs, another } = await open(t);
      const second = (await another()).jobs;
      for (let round = 0; round < 5; round++) {
        const job = await jobs.create(slotJob(), new Date(1000));
        t.ok((await jobs.beginUpload(job.id, 2000)) && (await jobs.storeUpload(job.id, '/a/x.audio', 2100)));
        const outcomes = await Promise.all([jobs, second, jobs, second].map((store, i) => store.complete(job.id, 'ten_a', 3000 + i)));
        t.same(outcomes.map((o) => o.outcome).sort(), ['accepted', 'already', 'already', 'already'], `round ${round}`);
        const accepted = outcomes.find((o) => o.outcome === 'accepted') as { job: JobRecord };
        t.same(await jobs.getById(job.id), accepted.job, 'the accepted record is the stored one');
        for (const o of outcomes) if (o.outcome === 'already') t.same(o.job, accepted.job, 'a retry sees it as accepted');
      }
    });

    t.test("complete racing the upload sweeper's fail: exactly one wins", async (t) => {
      const { jobs, another } = await open(t);
      const second = (await another()).jobs;
      const winners: string[] = [];
      for (let round = 0; round < 20; round++) {
        const job = await jobs.create(slotJob(), new Date(1000));
        t.ok((await jobs.beginUpload(job.id, 2000)) && (await jobs.storeUpload(job.id, `/a/${round}.audio`, 2100)));
        const complete = async () => ((await jobs.complete(job.id, 'ten_a', 9000)).outcome === 'accepted' ? 'completed' : null);
        const expire = async () =>
          (await second.fail(job.id, { status: 'awaiting_upload' }, { code: 'job_expired', message: 'late' }, retention, 9000)) ? 'expired' : null;
        const won = (await Promise.all(round % 2 === 0 ? [complete(), expire()] : [expire(), complete()])).filter((w) => w !== null);
        t.equal(won.length, 1, `round ${round}: one winner (${won.join(', ')})`);
        winners.push(...won);
        const after = (await jobs.getById(job.id))!;
        t.equal(after.status, won[0] === 'completed' ? 'accepted' : 'failed');
        t.equal(after.audioPath, won[0] === 'completed' ? `/a/${round}.audio` : null, 'the audio is kept exactly when the job goes on');
      }
    });

    t.test('a backlog of expired results larger than one statement names is handed out whole, each once', async (t) => {
      // More than one batch of the store (500 ids a statement): after downtime the backlog can pass
      // what one statement may name (SQLite 32,766 parameters, PostgreSQL 65,535).
      const { jobs } = await open(t);
      const count = 1_100;
      const finished = new Set<string>();
      let succeeded = 0;
      for (let i = 0; i < count; i++) {
        const job = await jobs.create(newJob('ten_a'), new Date(1000));
        const claimed = await jobs.claimNext('w', 2000, 60_000);
        if (claimed?.id === job.id && (await jobs.succeed(job.id, 'w', result(`/r/${i}`), retention, 3000))) succeeded += 1;
        finished.add(job.id);
      }
      t.equal(succeeded, count, 'each job claimed and succeeded as created');
      const expired = await jobs.expireResults(retention.resultExpiresAtMs);
      t.equal(expired.length, count, 'every expired result');
      t.same(new Set(expired.map((r) => r.id)), finished, 'each once');
      t.same(await jobs.expireResults(retention.resultExpiresAtMs), [], 'nothing left');
    });

    t.test('sweeps run twice at once: each expired result and each closed slot is handed out once', async (t) => {
      const { jobs, another } = await open(t);
      const second = (await another()).jobs;
      const finished = new Set<string>();
      for (let i = 0; i < 10; i++) {
        const job = await jobs.create(newJob('ten_a'), new Date(1000));
        t.equal((await jobs.claimNext('w', 2000, 60_000))?.id, job.id);
        t.ok(await jobs.succeed(job.id, 'w', result(`/r/${i}`), retention, 3000));
        finished.add(job.id);
      }
      const expired = (await Promise.all([jobs, second, jobs, second].map((s) => s.expireResults(retention.resultExpiresAtMs)))).flat();
      t.equal(expired.length, finished.size, 'one release per result');
      t.same(new Set(expired.map((r) => r.id)), finished);

      const revoked = 'key_RRRRRRRRRRRR';
      const slots = new Set<string>();
      for (let i = 0; i < 10; i++) slots.add((await jobs.create(slotJob({ keyId: revoked }), new Date(1000))).id);
      const closed = (
        await Promise.all(
          [jobs, second, jobs, second].map((s) => s.closeUploadSlotsOfKey(revoked, { code: 'job_expired', message: 'revoked' }, () => retention, 3000)),
        )
      ).flat();
      t.equal(closed.length, slots.size, 'one release per slot');
      t.same(new Set(closed.map((r) => r.id)), slots);
    });
  });
}
