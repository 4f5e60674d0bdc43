// SqliteJobStore: durable create and owner-scoped get.
import { join } from 'node:path';
import t from 'tap';
import type { NewJob } from '../../src/store/job-store.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { SqliteJobStore } from '../../src/store/sqlite/sqlite-job-store.js';

const newJob = (tenant: string, overrides: Partial<NewJob> = {}): NewJob => ({
  tenant,
  keyId: 'key_AAAAAAAAAAAA',
  status: 'accepted',
  request: { response_format: 'verbose_json', language: { mode: 'explicit', tag: 'en' }, vocabulary: ['metoprolol'] },
  audioPath: '/data/blobs/jobs/abc.audio',
  audioSeconds: 93.5,
  webhookUrl: null,
  ...overrides,
});

t.test('create returns the stored record; get finds it for its tenant only', async (t) => {
  const file = join(t.testdir(), 'svc-stt.db');
  const db = openDatabase(file);
  const jobs = new SqliteJobStore(db);
  const now = new Date('2030-05-06T07:08:09.000Z');
  const job = jobs.create(newJob('ten_a', { webhookUrl: 'https://example.com/hook' }), now);
  t.match(job.id, /^job_[0-9A-Za-z]{22}$/);
  t.match(job, {
    id: job.id,
    tenant: 'ten_a',
    keyId: 'key_AAAAAAAAAAAA',
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
  t.same(jobs.get(job.id, 'ten_a'), job);
  t.equal(jobs.get(job.id, 'ten_b'), null, "another tenant cannot see it");
  t.equal(jobs.get('job_missing', 'ten_a'), null);
  db.close();

  const reopened = openDatabase(file);
  t.same(new SqliteJobStore(reopened).get(job.id, 'ten_a'), job, 'durable across a reopen');
  reopened.close();
});

t.test('ids are unique; awaiting_upload jobs have no audio yet', async (t) => {
  const db = openDatabase(join(t.testdir(), 'svc-stt.db'));
  t.teardown(() => db.close());
  const jobs = new SqliteJobStore(db);
  const ids = new Set(Array.from({ length: 200 }, () => jobs.create(newJob('ten_a')).id));
  t.equal(ids.size, 200);
  const waiting = jobs.create(newJob('ten_a', { status: 'awaiting_upload', audioPath: null, audioSeconds: null }));
  t.equal(jobs.get(waiting.id, 'ten_a')?.audioPath, null);
  t.equal(jobs.get(waiting.id, 'ten_a')?.status, 'awaiting_upload');
});

t.test('referencesAudio tells the blob sweeper which audio is in use', async (t) => {
  const db = openDatabase(join(t.testdir(), 'svc-stt.db'));
  t.teardown(() => db.close());
  const jobs = new SqliteJobStore(db);
  jobs.create(newJob('ten_a', { audioPath: '/blobs/jobs/one.audio' }));
  t.equal(jobs.referencesAudio('/blobs/jobs/one.audio'), true);
  t.equal(jobs.referencesAudio('/blobs/jobs/two.audio'), false);
});

t.test('lifecycle: claims are exclusive, only the lease holder moves a job, oldest ready first', async (t) => {
  const db = openDatabase(':memory:');
  const jobs = new SqliteJobStore(db);
  const retention = { resultExpiresAtMs: 10_000_000, tombstoneUntilMs: 20_000_000 };
  const a = jobs.create(newJob('ten_a'), new Date(1000));
  const b = jobs.create(newJob('ten_a'), new Date(2000));

  const first = jobs.claimNext('w1', 3000, 60_000)!;
  t.equal(first.id, a.id, 'the job that waited longest');
  t.equal(first.status, 'running');
  t.equal(jobs.claimNext('w2', 3000, 60_000)!.id, b.id, 'a leased job is not claimed again');
  t.equal(jobs.claimNext('w3', 3000, 60_000), null, 'nothing else runnable');

  // A chunk committed sends the job to the back of the queue.
  t.ok(jobs.commitChunk(a.id, 'w1', { progress: { k: 1 }, completedAudioSeconds: 300, audioSeconds: 7200, partialPath: '/r/a.partial-1' }, 4000));
  t.notOk(jobs.commitChunk(a.id, 'w1', { progress: {}, completedAudioSeconds: 600, audioSeconds: null, partialPath: null }, 4001), 'no lease, no commit');
  t.ok(jobs.releaseLease(b.id, 'w2', 4500));
  t.equal(jobs.claimNext('w1', 5000, 60_000)!.id, b.id, 'b (ready at 2000) before a (ready again at 4000)');
  const again = jobs.claimNext('w2', 5000, 60_000)!;
  t.match(again, { id: a.id, resultRevision: 1, completedAudioSeconds: 300, partialPath: '/r/a.partial-1', progress: { k: 1 } });

  // A lease that ran out is reclaimed, counted as a stall; the old holder can no longer finish.
  const taken = jobs.claimNext('w3', 5000 + 60_001, 60_000)!;
  t.equal(taken.id, b.id);
  t.equal(taken.stalledClaims, 1);
  t.notOk(jobs.heartbeat(b.id, 'w1', 70_000, 60_000), 'the old holder lost it');
  t.notOk(jobs.succeed(b.id, 'w1', { resultPath: '/r/b.result', resultBytes: 10, contentType: 'application/json' }, retention, 70_000));
  t.ok(jobs.succeed(b.id, 'w3', { resultPath: '/r/b.result', resultBytes: 10, contentType: 'application/json' }, retention, 70_000));
  t.notOk(jobs.succeed(b.id, 'w3', { resultPath: '/r/b.result', resultBytes: 10, contentType: 'application/json' }, retention, 70_001), 'never completed twice');
  t.equal(jobs.fail(b.id, { workerId: 'w3' }, { code: 'internal_error', message: 'x' }, retention, 70_002), null, 'nor failed after success');
  t.match(jobs.getById(b.id), { status: 'succeeded', audioPath: null, resultPath: '/r/b.result', leaseOwner: null });

  // A restart releases what the dead process held.
  t.same(jobs.recoverAfterRestart(80_000), { leases: 1, uploads: 0 });
  t.match(jobs.claimNext('w9', 80_000, 60_000), { id: a.id, stalledClaims: 1 });
  t.same(jobs.fail(a.id, { workerId: 'w9' }, { code: 'audio_undecodable', message: 'm' }, retention, 81_000), {
    id: a.id,
    paths: ['/data/blobs/jobs/abc.audio', '/r/a.partial-1'],
  });
  t.ok(jobs.referencesBlob('/r/b.result'));
  t.notOk(jobs.referencesBlob('/r/a.partial-1'));

  // Retention: results expire, then tombstones end.
  t.same(jobs.expireResults(10_000_000), [{ id: b.id, paths: ['/r/b.result'] }]);
  t.equal(jobs.deleteEndedTombstones(19_999_999), 0);
  t.equal(jobs.deleteEndedTombstones(20_000_000), 2);
  db.close();
});

t.test('upload slots: one upload at a time, before the form expires, then complete once', async (t) => {
  const db = openDatabase(':memory:');
  const jobs = new SqliteJobStore(db);
  const job = jobs.create(
    newJob('ten_a', { status: 'awaiting_upload', audioPath: null, audioSeconds: null, upload: { bytes: 10, expiresAtMs: 5000, completeByMs: 9000 } }),
    new Date(1000),
  );
  t.equal(jobs.complete(job.id, 'ten_a', 1500).outcome, 'not_uploaded');
  t.equal(jobs.complete(job.id, 'ten_b', 1500).outcome, 'not_found', 'owner-scoped');
  t.notOk(jobs.beginUpload(job.id, 5000), 'expired form');
  t.ok(jobs.beginUpload(job.id, 2000));
  t.notOk(jobs.beginUpload(job.id, 2000), 'one at a time');
  jobs.abandonUpload(job.id);
  t.ok(jobs.beginUpload(job.id, 2100), 'a failed upload reopens the slot');
  t.same(jobs.recoverAfterRestart(2200), { leases: 0, uploads: 1 }, 'so does a crash');
  t.ok(jobs.beginUpload(job.id, 2300));
  t.ok(jobs.storeUpload(job.id, '/data/blobs/jobs/x.audio', 2400));
  t.notOk(jobs.beginUpload(job.id, 2500), 'used');
  t.same(jobs.overdueUploads(9000), [job.id]);
  const accepted = jobs.complete(job.id, 'ten_a', 3000);
  t.match(accepted, { outcome: 'accepted', job: { status: 'accepted', readyAtMs: 3000 } });
  t.equal(jobs.complete(job.id, 'ten_a', 3001).outcome, 'already');
  t.same(jobs.overdueUploads(9000), [], 'completed jobs do not expire');
  db.close();
});

t.test("closeUploadSlotsOfKey: every open slot of the key fails at once, a receiving one included; nothing else moves", async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const jobs = new SqliteJobStore(db);
  const slot = (keyId: string) =>
    jobs.create(newJob('ten_a', { keyId, status: 'awaiting_upload', audioPath: null, audioSeconds: null, upload: { bytes: 10, expiresAtMs: 5000, completeByMs: 9000 } }), new Date(1000));
  const revoked = 'key_RRRRRRRRRRRR';
  const empty = slot(revoked);
  const receiving = slot(revoked);
  const stored = slot(revoked);
  const otherKeys = slot('key_OOOOOOOOOOOO');
  const accepted = jobs.create(newJob('ten_a', { keyId: revoked }), new Date(1000));
  t.ok(jobs.beginUpload(receiving.id, 2000));
  t.ok(jobs.beginUpload(stored.id, 2000) && jobs.storeUpload(stored.id, '/data/blobs/jobs/s.audio', 2100));

  const retentions: string[] = [];
  const released = jobs.closeUploadSlotsOfKey(
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
    t.match(jobs.getById(id), { status: 'failed', errorCode: 'job_expired', errorMessage: 'revoked', audioPath: null, resultExpiresAtMs: 10_000, finishedAtMs: 3000 });
  }
  t.notOk(jobs.storeUpload(receiving.id, '/data/blobs/jobs/late.audio', 3100), 'the upload that was streaming cannot land');
  t.equal(jobs.getById(otherKeys.id)!.status, 'awaiting_upload', "another key's slot stays open");
  t.equal(jobs.getById(accepted.id)!.status, 'accepted', 'accepted work is not touched');
  t.same(jobs.closeUploadSlotsOfKey(revoked, { code: 'job_expired', message: 'revoked' }, () => ({ resultExpiresAtMs: 0, tombstoneUntilMs: 0 }), 4000), [], 'idempotent');
});
