// Transcription jobs in SQLite: the durable row behind every 202 and 201, and the lifecycle's
// transitions as conditional UPDATEs (see job-store.ts). One connection per process, and every
// statement autocommits with synchronous=FULL, so a transition that returned is on disk.
import { leaseOfDeadInstance } from '../instance-record.js';
import type { Database, Statement } from 'better-sqlite3';
import type { MeteredWork } from '../usage-record.js';
import { UsageRecorder } from './sqlite-usage-ledger.js';
import type { ChunkProgress, CompleteOutcome, DecorationOutcome, JobCounts, FinalResult, OutboxEvent, JobRecord, PendingDecoration, JobStore, JobStoreOptions, NewJob, ReleasedBlobs, Retention } from '../job-store.js';
import {
  DECORATION_CLAIM_ORDER,
  LEASED_WORK,
  RESULT_EXPIRY_SET,
  claimableDecorations,
  claimableJobs,
  uploadDeadlineColumn,
  completionWithoutAccept,
  emptyStatusCounts,
  iso,
  jobRecordOf,
  mayEndDecoration,
  mayFail,
  newJobRow,
  releasedByDecoration,
  releasedByExpiry,
  releasedByFailure,
  type FailError,
  type FailFrom,
  type JobRow,
} from '../job-record.js';

import type { JobStatus } from '../../domain/job-statuses.js';
export class SqliteJobStore implements JobStore {
  private readonly insert: Statement<[Record<string, unknown>]>;
  private readonly selectOwned: Statement<[string, string], JobRow>;
  private readonly selectById: Statement<[string], JobRow>;
  private readonly selectByBlob: Statement<[string, string, string], { one: number }>;
  private readonly claimTransaction: (workerId: string, nowMs: number, leaseMs: number) => JobRecord | null;
  private readonly claimDecorationTransaction: (workerId: string, nowMs: number, leaseMs: number) => JobRecord | null;
  private readonly endDecorationTransaction: (id: string, workerId: string, outcome: DecorationOutcome, nowMs: number) => ReleasedBlobs | null;
  private readonly completeTransaction: (id: string, tenant: string, nowMs: number) => CompleteOutcome;
  private readonly failTransaction: ReleasedBlobsFn;
  private readonly expireTransaction: (nowMs: number) => ReleasedBlobs[];
  private readonly closeSlotsTransaction: CloseSlotsFn;
  private readonly succeedTransaction: (
    id: string,
    workerId: string,
    result: FinalResult,
    retention: Retention,
    nowMs: number,
    event: OutboxEvent | null,
    decoration: PendingDecoration | null,
    usage: MeteredWork | null,
  ) => boolean;

  private readonly instanceId: string | null;

  constructor(
    private readonly db: Database,
    options: JobStoreOptions = {},
  ) {
    this.instanceId = options.instanceId ?? null;
    this.insert = db.prepare(`INSERT INTO jobs (id, tenant, key_id, status, model, request, audio_path, audio_seconds,
        webhook_url, webhook_secret_version, created_at, updated_at, ready_at_ms, upload_state, upload_bytes,
        upload_expires_at_ms, complete_by_ms, retention_hours)
      VALUES (@id, @tenant, @key_id, @status, @model, @request, @audio_path, @audio_seconds, @webhook_url,
        @webhook_secret_version, @created_at, @updated_at, @ready_at_ms, @upload_state, @upload_bytes,
        @upload_expires_at_ms, @complete_by_ms, @retention_hours)`);
    this.selectOwned = db.prepare('SELECT * FROM jobs WHERE id = ? AND tenant = ?');
    this.selectById = db.prepare('SELECT * FROM jobs WHERE id = ?');
    this.selectByBlob = db.prepare(
      'SELECT 1 AS one FROM jobs WHERE audio_path = ? OR partial_path = ? OR result_path = ? LIMIT 1',
    );

    const nextRunnable = db.prepare<[number], JobRow>(`SELECT * FROM jobs
      WHERE ${claimableJobs('?')}
      ORDER BY ready_at_ms, created_at, id LIMIT 1`);
    const lease = db.prepare(`UPDATE jobs SET status = 'running', lease_owner = @worker, lease_expires_at_ms = @until,
        stalled_claims = stalled_claims + (CASE WHEN lease_owner IS NULL THEN 0 ELSE 1 END),
        updated_at = (CASE WHEN status = 'running' THEN updated_at ELSE @at END)
      WHERE id = @id`);
    const claim = db.transaction((workerId: string, nowMs: number, leaseMs: number) => {
      const row = nextRunnable.get(nowMs);
      if (!row) return null;
      lease.run({ worker: workerId, until: nowMs + leaseMs, at: iso(nowMs), id: row.id });
      return jobRecordOf(this.selectById.get(row.id)!);
    });
    // IMMEDIATE: the read and the lease are one step under the write lock, so two claimers never
    // take the same job.
    this.claimTransaction = (...args) => claim.immediate(...args);

    const nextDecoration = db.prepare<[number], JobRow>(`SELECT * FROM jobs
      WHERE ${claimableDecorations('?')}
      ORDER BY ${DECORATION_CLAIM_ORDER} LIMIT 1`);
    const leaseDecoration = db.prepare(`UPDATE jobs SET lease_owner = @worker, lease_expires_at_ms = @until,
        decoration_attempts = decoration_attempts + 1
      WHERE id = @id AND status = 'succeeded' AND decoration = 'processing'`);
    // IMMEDIATE, as claim: two claimers never take the same decoration.
    const claimDecoration = db.transaction((workerId: string, nowMs: number, leaseMs: number) => {
      const row = nextDecoration.get(nowMs);
      if (!row) return null;
      leaseDecoration.run({ worker: workerId, until: nowMs + leaseMs, id: row.id });
      return jobRecordOf(this.selectById.get(row.id)!);
    });
    this.claimDecorationTransaction = (...args) => claimDecoration.immediate(...args);

    const usageRecorder = new UsageRecorder(db);
    const markDecorated = db.prepare(`UPDATE jobs SET decoration = @decoration, result_path = @path, result_bytes = @bytes,
        result_content_type = @type, audio_path = NULL, partial_path = NULL, lease_owner = NULL,
        lease_expires_at_ms = NULL, updated_at = @at
      WHERE id = @id AND status = 'succeeded' AND decoration = 'processing' AND lease_owner = @worker`);
    const endDecoration = db.transaction((id: string, workerId: string, outcome: DecorationOutcome, nowMs: number) => {
      const row = this.selectById.get(id);
      if (!row || !mayEndDecoration(row, workerId)) return null;
      markDecorated.run({
        decoration: outcome.status === 'done' ? null : 'unavailable',
        path: outcome.result.resultPath,
        bytes: outcome.result.resultBytes,
        type: outcome.result.contentType,
        at: iso(nowMs),
        id,
        worker: workerId,
      });
      const review = outcome.reviewRequired;
      if (review && review.passages > 0) usageRecorder.addReviewRequired(review.usageEventKey, review.passages);
      return releasedByDecoration(row, outcome.result);
    });
    this.endDecorationTransaction = (...args) => endDecoration.immediate(...args);

    const accept = db.prepare(`UPDATE jobs SET status = 'accepted', ready_at_ms = @now, updated_at = @at
      WHERE id = @id AND status = 'awaiting_upload' AND upload_state = 'stored'`);
    const complete = db.transaction((id: string, tenant: string, nowMs: number): CompleteOutcome => {
      const row = this.selectOwned.get(id, tenant);
      if (!row) return { outcome: 'not_found' };
      const settled = completionWithoutAccept(row);
      if (settled) return settled;
      accept.run({ id, now: nowMs, at: iso(nowMs) });
      return { outcome: 'accepted', job: jobRecordOf(this.selectById.get(id)!) };
    });
    this.completeTransaction = (...args) => complete.immediate(...args);

    // The outbox row of the webhook event: due at once (the first attempt is immediate).
    const insertEvent = db.prepare(`INSERT INTO webhook_deliveries (event_id, job_id, key_id, secret_version, url, body,
        state, next_attempt_at_ms, created_at_ms)
      VALUES (@event_id, @job_id, @key_id, @secret_version, @url, @body, 'pending', @now, @now)`);
    /** Writes `event` to the outbox for job `id`: called inside the transaction of its transition. */
    const recordEvent = (id: string, event: OutboxEvent, nowMs: number) =>
      insertEvent.run({
        event_id: event.eventId,
        job_id: id,
        key_id: event.keyId,
        secret_version: event.secretVersion,
        url: event.url,
        body: event.body,
        now: nowMs,
      });
    const markFailed = db.prepare(`UPDATE jobs SET status = 'failed', error_code = @code, error_message = @message,
        audio_path = NULL, partial_path = NULL, lease_owner = NULL, lease_expires_at_ms = NULL,
        upload_state = (CASE WHEN upload_state = 'receiving' THEN 'empty' ELSE upload_state END),
        result_expires_at_ms = @expires, tombstone_until_ms = @tombstone, finished_at_ms = @now, updated_at = @at
      WHERE id = @id`);
    /** Marks `row` failed; returns the blobs it no longer references (the caller deletes them). */
    const markRowFailed = (row: JobRow, error: FailError, retention: Retention, nowMs: number) => {
      markFailed.run({
        id: row.id,
        code: error.code,
        message: error.message,
        expires: retention.resultExpiresAtMs,
        tombstone: retention.tombstoneUntilMs,
        now: nowMs,
        at: iso(nowMs),
      });
      return releasedByFailure(row);
    };
    const fail = db.transaction((id: string, from: FailFrom, error: FailError, retention: Retention, nowMs: number, event: OutboxEvent | null) => {
      const row = this.selectById.get(id);
      if (!row || !mayFail(row, from)) return null;
      const released = markRowFailed(row, error, retention, nowMs);
      if (event) recordEvent(id, event, nowMs);
      return released;
    });
    this.failTransaction = (...args) => fail.immediate(...args);

    // Unlike `fail` from awaiting_upload, a slot receiving a file is closed too: the upload route
    // sees the job gone from awaiting_upload and discards what it was writing (storeUpload refuses).
    const openSlotsOfKey = db.prepare<[string], JobRow>(`SELECT * FROM jobs WHERE status = 'awaiting_upload' AND key_id = ?`);
    const closeSlots = db.transaction((keyId: string, error: FailError, retentionOf: (job: JobRecord) => Retention, nowMs: number) =>
      openSlotsOfKey.all(keyId).map((row) => markRowFailed(row, error, retentionOf(jobRecordOf(row)), nowMs)),
    );
    this.closeSlotsTransaction = (...args) => closeSlots.immediate(...args);

    const dueResults = db.prepare<[number], JobRow>(`SELECT * FROM jobs
      WHERE result_expires_at_ms IS NOT NULL AND result_expires_at_ms <= ? AND result_path IS NOT NULL`);
    const clearResult = db.prepare(`UPDATE jobs SET ${RESULT_EXPIRY_SET} WHERE id = ?`);
    const expire = db.transaction((nowMs: number) => {
      const released: ReleasedBlobs[] = [];
      for (const row of dueResults.all(nowMs)) {
        clearResult.run(row.id);
        released.push(releasedByExpiry(row));
      }
      return released;
    });
    this.expireTransaction = (nowMs) => expire.immediate(nowMs);

    // Decorating (@decorating = 1): the audio and provisional result stay for the decoration (the
    // carry-over and the provisional result replaced when given), and the worker keeps its lease on
    // the succeeded row until @decorateUntil.
    const markSucceeded = db.prepare(`UPDATE jobs SET status = 'succeeded', result_path = @path, result_bytes = @bytes,
        result_content_type = @type, result_expires_at_ms = @expires, tombstone_until_ms = @tombstone,
        finished_at_ms = @now, updated_at = @at,
        audio_path = (CASE WHEN @decorating = 1 THEN audio_path ELSE NULL END),
        partial_path = (CASE WHEN @decorating = 1 THEN COALESCE(@partial, partial_path) ELSE NULL END),
        result_revision = result_revision + (CASE WHEN @decorating = 1 AND @partial IS NOT NULL THEN 1 ELSE 0 END),
        progress = (CASE WHEN @decorating = 1 THEN COALESCE(@progress, progress) ELSE progress END),
        lease_owner = (CASE WHEN @decorating = 1 THEN @worker ELSE NULL END),
        lease_expires_at_ms = (CASE WHEN @decorating = 1 THEN @decorateUntil ELSE NULL END),
        decoration = (CASE WHEN @decorating = 1 THEN 'processing' ELSE decoration END),
        decoration_attempts = (CASE WHEN @decorating = 1 THEN 1 ELSE decoration_attempts END)
      WHERE id = @id AND status = 'running' AND lease_owner = @worker`);
    const succeed = db.transaction(
      (
        id: string,
        workerId: string,
        result: FinalResult,
        retention: Retention,
        nowMs: number,
        event: OutboxEvent | null,
        decoration: PendingDecoration | null,
        usage: MeteredWork | null,
      ) => {
        const won =
          markSucceeded.run({
            decorating: decoration ? 1 : 0,
            decorateUntil: decoration ? nowMs + decoration.leaseMs : null,
            partial: decoration?.partialPath ?? null,
            progress: decoration?.progress ? JSON.stringify(decoration.progress) : null,
            path: result.resultPath,
            bytes: result.resultBytes,
            type: result.contentType,
            expires: retention.resultExpiresAtMs,
            tombstone: retention.tombstoneUntilMs,
            now: nowMs,
            at: iso(nowMs),
            id,
            worker: workerId,
          }).changes === 1;
        if (won && event) recordEvent(id, event, nowMs);
        if (won && usage) usageRecorder.record(usage.event, usage.terms);
        return won;
      },
    );
    this.succeedTransaction = (...args) => succeed.immediate(...args);
  }

  async create(job: NewJob, now = new Date()): Promise<JobRecord> {
    const row = newJobRow(job, now);
    // Autocommit with synchronous=FULL: the row is on disk when run() returns.
    this.insert.run(row);
    return jobRecordOf(this.selectById.get(row.id)!);
  }

  async get(id: string, tenant: string): Promise<JobRecord | null> {
    const row = this.selectOwned.get(id, tenant);
    return row ? jobRecordOf(row) : null;
  }

  async getById(id: string): Promise<JobRecord | null> {
    const row = this.selectById.get(id);
    return row ? jobRecordOf(row) : null;
  }

  async beginUpload(id: string, nowMs: number, options: { until?: 'form_expiry' | 'complete_by' } = {}): Promise<boolean> {
    return (
      this.db
        .prepare(`UPDATE jobs SET upload_state = 'receiving', upload_owner = ?
          WHERE id = ? AND status = 'awaiting_upload' AND upload_state = 'empty' AND ${uploadDeadlineColumn(options.until)} > ?`)
        .run(this.instanceId, id, nowMs).changes === 1
    );
  }

  async abandonUpload(id: string): Promise<void> {
    this.db.prepare(`UPDATE jobs SET upload_state = 'empty' WHERE id = ? AND upload_state = 'receiving'`).run(id);
  }

  async storeUpload(id: string, audioPath: string, nowMs: number): Promise<boolean> {
    return (
      this.db
        .prepare(`UPDATE jobs SET upload_state = 'stored', audio_path = ?, updated_at = ?
          WHERE id = ? AND status = 'awaiting_upload' AND upload_state = 'receiving'`)
        .run(audioPath, iso(nowMs), id).changes === 1
    );
  }

  async complete(id: string, tenant: string, nowMs: number): Promise<CompleteOutcome> {
    return this.completeTransaction(id, tenant, nowMs);
  }

  async claimNext(workerId: string, nowMs: number, leaseMs: number): Promise<JobRecord | null> {
    return this.claimTransaction(workerId, nowMs, leaseMs);
  }

  async heartbeat(id: string, workerId: string, nowMs: number, leaseMs: number): Promise<boolean> {
    return (
      this.db
        .prepare(`UPDATE jobs SET lease_expires_at_ms = ?
          WHERE id = ? AND ${LEASED_WORK} AND lease_owner = ?`)
        .run(nowMs + leaseMs, id, workerId).changes === 1
    );
  }

  async commitChunk(id: string, workerId: string, chunk: ChunkProgress, nowMs: number): Promise<boolean> {
    return (
      this.db
        .prepare(`UPDATE jobs SET progress = @progress, completed_audio_seconds = @completed,
            audio_seconds = COALESCE(@audioSeconds, audio_seconds),
            partial_path = COALESCE(@partial, partial_path),
            result_revision = result_revision + (CASE WHEN @partial IS NULL THEN 0 ELSE 1 END),
            lease_owner = NULL, lease_expires_at_ms = NULL, stalled_claims = 0, ready_at_ms = @now, updated_at = @at
          WHERE id = @id AND status = 'running' AND lease_owner = @worker`)
        .run({
          progress: JSON.stringify(chunk.progress),
          completed: chunk.completedAudioSeconds,
          audioSeconds: chunk.audioSeconds,
          partial: chunk.partialPath,
          now: nowMs,
          at: iso(nowMs),
          id,
          worker: workerId,
        }).changes === 1
    );
  }

  // No status condition: a running job's lease and a decoration's are given back alike.
  async releaseLease(id: string, workerId: string, _nowMs: number): Promise<boolean> {
    return (
      this.db
        .prepare(`UPDATE jobs SET lease_owner = NULL, lease_expires_at_ms = NULL WHERE id = ? AND lease_owner = ?`)
        .run(id, workerId).changes === 1
    );
  }

  async succeed(
    id: string,
    workerId: string,
    result: FinalResult,
    retention: Retention,
    nowMs: number,
    event: OutboxEvent | null = null,
    decoration: PendingDecoration | null = null,
    usage: MeteredWork | null = null,
  ): Promise<boolean> {
    return this.succeedTransaction(id, workerId, result, retention, nowMs, event, decoration, usage);
  }

  async claimDecoration(workerId: string, nowMs: number, leaseMs: number): Promise<JobRecord | null> {
    return this.claimDecorationTransaction(workerId, nowMs, leaseMs);
  }

  async endDecoration(id: string, workerId: string, outcome: DecorationOutcome, nowMs: number): Promise<ReleasedBlobs | null> {
    return this.endDecorationTransaction(id, workerId, outcome, nowMs);
  }

  async fail(id: string, from: FailFrom, error: FailError, retention: Retention, nowMs: number, event: OutboxEvent | null = null): Promise<ReleasedBlobs | null> {
    return this.failTransaction(id, from, error, retention, nowMs, event);
  }

  async closeUploadSlotsOfKey(keyId: string, error: FailError, retentionOf: (job: JobRecord) => Retention, nowMs: number): Promise<ReleasedBlobs[]> {
    return this.closeSlotsTransaction(keyId, error, retentionOf, nowMs);
  }

  async releaseWorkOfDeadInstances(_nowMs: number): Promise<{ leases: number; uploads: number }> {
    const recover = this.db.transaction(() => {
      const leases = this.db
        .prepare(`UPDATE jobs SET lease_expires_at_ms = 0
          WHERE lease_owner IS NOT NULL AND ${LEASED_WORK}
            AND (lease_expires_at_ms IS NULL OR lease_expires_at_ms <> 0) AND ${leaseOfDeadInstance('jobs')}`)
        .run().changes;
      const uploads = this.db
        .prepare(`UPDATE jobs SET upload_state = 'empty', upload_owner = NULL
          WHERE upload_state = 'receiving'
            AND (upload_owner IS NULL OR NOT EXISTS (SELECT 1 FROM service_instances i WHERE i.id = jobs.upload_owner))`)
        .run().changes;
      return { leases, uploads };
    });
    return recover.immediate();
  }

  async overdueUploads(nowMs: number): Promise<string[]> {
    return this.db
      .prepare<[number], { id: string }>(`SELECT id FROM jobs WHERE status = 'awaiting_upload' AND complete_by_ms <= ?`)
      .all(nowMs)
      .map((row) => row.id);
  }

  async expireResults(nowMs: number): Promise<ReleasedBlobs[]> {
    return this.expireTransaction(nowMs);
  }

  async deleteEndedTombstones(nowMs: number): Promise<number> {
    return this.db
      .prepare(`DELETE FROM jobs WHERE status IN ('succeeded', 'failed') AND tombstone_until_ms <= ?`)
      .run(nowMs).changes;
  }

  async referencesBlob(path: string): Promise<boolean> {
    return this.selectByBlob.get(path, path, path) !== undefined;
  }

  async jobCounts(nowMs: number): Promise<JobCounts> {
    const byStatus = emptyStatusCounts();
    for (const row of this.db.prepare<[], { status: JobStatus; n: number }>('SELECT status, count(*) AS n FROM jobs GROUP BY status').all()) {
      byStatus[row.status] = row.n;
    }
    const claimable = this.db.prepare<[number], { n: number }>(`SELECT count(*) AS n FROM jobs WHERE ${claimableJobs('?')}`).get(nowMs)!.n;
    return { byStatus, claimable };
  }

  /** Whether any job still points at this audio file (kept for callers of the first version). */
  async referencesAudio(path: string): Promise<boolean> {
    return this.referencesBlob(path);
  }
}

type CloseSlotsFn = (keyId: string, error: FailError, retentionOf: (job: JobRecord) => Retention, nowMs: number) => ReleasedBlobs[];
type ReleasedBlobsFn = (id: string, from: FailFrom, error: FailError, retention: Retention, nowMs: number, event: OutboxEvent | null) => ReleasedBlobs | null;
