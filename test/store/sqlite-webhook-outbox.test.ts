// The webhook outbox in SQLite: events are written by the job's own `succeeded` transition (all or
// nothing), then claimed under leases, attempted, rescheduled, delivered or given up.
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { NewJob, OutboxEvent } from '../../src/store/job-store.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { SqliteJobStore } from '../../src/store/sqlite/sqlite-job-store.js';
import { SqliteWebhookOutbox } from '../../src/store/sqlite/sqlite-webhook-outbox.js';
import { jobSucceededEvent } from '../../src/jobs/job-succeeded-event.js';

const T0 = Date.parse('2031-01-02T03:04:05.000Z');
const retention = { resultExpiresAtMs: T0 + 9 * 3600_000, tombstoneUntilMs: T0 + 81 * 3600_000 };
const result = { resultPath: '/r/final.json', resultBytes: 10, contentType: 'application/json' };

const newJob = (overrides: Partial<NewJob> = {}): NewJob => ({
  tenant: 'ten_a',
  keyId: 'key_AAAAAAAAAAAA',
  status: 'accepted',
  request: {},
  audioPath: '/a/audio',
  audioSeconds: 90,
  webhookUrl: 'https://hooks.example.com/stt',
  webhookSecretVersion: 2,
  ...overrides,
});

function open(t: Test) {
  const db = openDatabase(join(t.testdir(), 'svc-stt.db'));
  t.teardown(() => db.close());
  return { db, jobs: new SqliteJobStore(db), outbox: new SqliteWebhookOutbox(db) };
}

function runningJob(jobs: SqliteJobStore, worker = 'w1') {
  const job = jobs.create(newJob(), new Date(T0));
  const claimed = jobs.claimNext(worker, T0, 60_000);
  if (claimed?.id !== job.id) throw new Error('claim failed');
  return claimed;
}

function eventFor(jobId: string): OutboxEvent {
  return jobSucceededEvent({ jobId, keyId: 'key_AAAAAAAAAAAA', secretVersion: 2, url: 'https://hooks.example.com/stt', pollUrl: `https://stt.example.com/v1/jobs/${jobId}`, nowMs: T0 });
}

t.test('the event body carries only the contract fields', async (t) => {
  const event = eventFor('job_X');
  const body = JSON.parse(event.body);
  t.match(event.eventId, /^evt_[0-9A-Za-z]{22}$/);
  t.same(body, {
    id: event.eventId,
    type: 'transcription.job.succeeded',
    created: '2031-01-02T03:04:05.000Z',
    data: { job_id: 'job_X', status: 'succeeded', poll_url: 'https://stt.example.com/v1/jobs/job_X' },
  });
  t.not(eventFor('job_X').eventId, event.eventId, 'a fresh id per event');
});

t.test('succeed writes the event in its own transaction; a lost transition writes none', async (t) => {
  const { jobs, outbox } = open(t);
  const job = runningJob(jobs);
  t.equal(jobs.succeed(job.id, 'someone-else', result, retention, T0, eventFor(job.id)), false, 'not the lease holder');
  t.equal(outbox.forJob(job.id), null, 'no event for a transition that did not happen');

  const event = eventFor(job.id);
  t.equal(jobs.succeed(job.id, 'w1', result, retention, T0 + 5, event), true);
  t.match(outbox.forJob(job.id), {
    eventId: event.eventId,
    jobId: job.id,
    keyId: 'key_AAAAAAAAAAAA',
    secretVersion: 2,
    url: 'https://hooks.example.com/stt',
    body: event.body,
    state: 'pending',
    attempts: 0,
    nextAttemptAtMs: T0 + 5,
    lastStatus: null,
  });
  t.equal(jobs.getById(job.id)!.webhookSecretVersion, 2, 'the pinned version is on the job');
  t.equal(jobs.succeed(job.id, 'w1', result, retention, T0 + 6, eventFor(job.id)), false, 'a second success is refused');
});

t.test('if the event cannot be written, the job does not succeed either (one transaction)', async (t) => {
  const { db, jobs, outbox } = open(t);
  const job = runningJob(jobs);
  // Make the insert fail: a row for this job already exists (job_id is UNIQUE).
  db.prepare(`INSERT INTO webhook_deliveries (event_id, job_id, key_id, secret_version, url, body, state, created_at_ms)
    VALUES ('evt_other', ?, 'k', 1, 'u', 'b', 'delivered', 0)`).run(job.id);
  t.throws(() => jobs.succeed(job.id, 'w1', result, retention, T0, eventFor(job.id)));
  const after = jobs.getById(job.id)!;
  t.equal(after.status, 'running', 'the transition rolled back with the failed insert');
  t.equal(after.resultPath, null);
  t.equal(outbox.forJob(job.id)!.eventId, 'evt_other');
});

t.test('claims: due first, one holder at a time, lease expiry, lost leases cannot record', async (t) => {
  const { jobs, outbox } = open(t);
  const a = runningJob(jobs);
  jobs.succeed(a.id, 'w1', result, retention, T0, eventFor(a.id));
  t.equal(outbox.claimDue('d1', T0 - 1, 70_000), null, 'not due before its time');
  t.equal(outbox.nextDueAtMs(), T0);

  const claimed = outbox.claimDue('d1', T0, 70_000)!;
  t.equal(claimed.jobId, a.id);
  t.equal(outbox.claimDue('d2', T0 + 1000, 70_000), null, 'leased: nobody else may attempt it');
  const stolen = outbox.claimDue('d2', T0 + 70_000, 70_000)!;
  t.equal(stolen.eventId, claimed.eventId, 'an expired lease lets another worker take it');
  t.equal(outbox.recordAttempt(claimed.eventId, 'd1', { delivered: true, summary: 'http 204', nextAttemptAtMs: null }, T0 + 70_001), false, 'the first worker lost it');
  t.equal(outbox.recordAttempt(claimed.eventId, 'd2', { delivered: false, summary: 'http 500', nextAttemptAtMs: T0 + 130_000 }, T0 + 70_002), true);
  t.match(outbox.forJob(a.id), { state: 'pending', attempts: 1, lastStatus: 'http 500', lastAttemptAtMs: T0 + 70_002, nextAttemptAtMs: T0 + 130_000 });
  t.equal(outbox.claimDue('d1', T0 + 129_999, 70_000), null);
  const again = outbox.claimDue('d1', T0 + 130_000, 70_000)!;
  t.equal(outbox.recordAttempt(again.eventId, 'd1', { delivered: true, summary: 'http 200', nextAttemptAtMs: null }, T0 + 130_001), true);
  t.match(outbox.forJob(a.id), { state: 'delivered', attempts: 2, lastStatus: 'http 200', nextAttemptAtMs: null });
  t.equal(outbox.claimDue('d1', T0 + 10 ** 9, 70_000), null, 'a delivered event is never attempted again');
  t.equal(outbox.nextDueAtMs(), null);
});

t.test('the last failed attempt gives up; a restart releases leases of the dead process', async (t) => {
  const { jobs, outbox } = open(t);
  const a = runningJob(jobs);
  jobs.succeed(a.id, 'w1', result, retention, T0, eventFor(a.id));
  const claimed = outbox.claimDue('d1', T0, 70_000)!;
  t.equal(outbox.recoverAfterRestart(), 1);
  const reclaimed = outbox.claimDue('d2', T0 + 1, 70_000)!;
  t.equal(reclaimed.eventId, claimed.eventId, 'claimable at once after the restart, same event id');
  t.equal(reclaimed.attempts, 0, 'an attempt cut off by a crash is not counted');
  outbox.recordAttempt(reclaimed.eventId, 'd2', { delivered: false, summary: 'timeout after 10000 ms', nextAttemptAtMs: null }, T0 + 2);
  t.match(outbox.forJob(a.id), { state: 'failed', attempts: 1, nextAttemptAtMs: null, lastStatus: 'timeout after 10000 ms' });
  t.equal(outbox.claimDue('d2', T0 + 10 ** 9, 70_000), null, 'given up: never attempted again');
});
