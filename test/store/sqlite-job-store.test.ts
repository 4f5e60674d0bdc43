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
  t.same(job, {
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
