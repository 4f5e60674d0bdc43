// The JobStore contract, run against every implementation (test/store/job-store.test.ts): create and
// owner-scoped reads, the lifecycle's conditional transitions, upload slots, revocation of a key's
// slots, retention; and the races that many worker and API processes on one database run into,
// between stores on separate connections: claims, succeed against fail, complete against complete
// and against the upload sweeper, and sweeps run twice at once. (On SQLite the "concurrent" calls
// run one after another, so there these cases check the outcome rules only; on PostgreSQL they race.)
import type { Test } from 'tap';
import type { JobRecord, JobStore, NewJob, OutboxEvent } from '../../../src/store/job-store.js';
import { leaseOwnerOf, type InstanceRegistry } from '../../../src/store/instance-registry.js';
import type { WebhookOutbox } from '../../../src/store/webhook-outbox.js';

export interface JobStores {
  jobs: JobStore;
  outbox: WebhookOutbox;
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
const eventFor = (jobId: string): OutboxEvent => ({ eventId: `evt_${jobId}`, keyId: KEY, secretVersion: 1, url: 'https://hooks.example.com/x', body: `{"job":"${jobId}"}` });
const count = <T>(items: T[], item: T) => items.filter((i) => i === item).length;

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
      t.notOk(await jobs.commitChunk(a.id, 'w1', { progress: {}, completedAudioSeconds: 600, audioSeconds: null, partialPath: null }, 4001), 'no lease, no commit');
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
      for (const [id, owner] of [[live.id, 'inst_live'], [dead.id, 'inst_dead']]) {
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
      t.match(await jobs.claimNext(leaseOwnerOf('inst_live', 1), 3001, 60_000), { id: running.id, stalledClaims: 1 }, "the dead instance's job is claimable at once");
      t.match(await jobs.getById(deadSlot.id), { uploadState: 'empty' }, 'its upload slot reopened');
      t.match(await jobs.getById(liveSlot.id), { uploadState: 'receiving' }, "the live instance's upload goes on");
      t.equal((await outbox.claimDue(leaseOwnerOf('inst_live', 'webhooks'), 3002, 60_000))?.eventId, deadEvent.eventId);
      t.ok(await outbox.recordAttempt(liveEvent.eventId, leaseOwnerOf('inst_live', 'webhooks'), { delivered: true, summary: 'http 204', nextAttemptAtMs: null }, 3003), "the live instance's lease held");
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
        t.match(await jobs.getById(id), { status: 'failed', errorCode: 'job_expired', errorMessage: 'revoked', audioPath: null, resultExpiresAtMs: 10_000, finishedAtMs: 3000 });
      }
      t.notOk(await jobs.storeUpload(receiving.id, '/data/blobs/jobs/late.audio', 3100), 'the upload that was streaming cannot land');
      t.equal((await jobs.getById(otherKeys.id))!.status, 'awaiting_upload', "another key's slot stays open");
      t.equal((await jobs.getById(accepted.id))!.status, 'accepted', 'accepted work is not touched');
      t.same(await jobs.closeUploadSlotsOfKey(revoked, { code: 'job_expired', message: 'revoked' }, () => ({ resultExpiresAtMs: 0, tombstoneUntilMs: 0 }), 4000), [], 'idempotent');
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
        if (job.leaseOwner !== worker || job.stalledClaims !== 0) t.fail(`${id}: held by ${job.leaseOwner} (stalled ${job.stalledClaims}), claimed by ${worker}`);
      }
    });

    t.test("the lease holder's succeed racing a stale worker and a fail: exactly one wins; the event exists exactly when the job succeeded", async (t) => {
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
          async () => ((await second.fail(job.id, { workerId: 'w-old' }, internalError, retention, 4000)) ? 'stale failed' : null),
          async () => ((await second.fail(job.id, { status: 'running' }, internalError, retention, 4000)) ? 'failed' : null),
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
          t.equal(event, null, 'no event for a job that did not succeed');
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
