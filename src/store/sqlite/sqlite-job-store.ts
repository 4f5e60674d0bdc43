// Transcription jobs in SQLite: the durable row behind every 202 and 201, and the lifecycle's
// transitions as conditional UPDATEs (see job-store.ts). One connection per process, and every
// statement autocommits with synchronous=FULL, so a transition that returned is on disk.
import type { Database, Statement } from 'better-sqlite3';
import type {
  ChunkProgress,
  CompleteOutcome,
  FinalResult,
  JobFailureCode,
  OutboxEvent,
  JobRecord,
  JobStatus,
  JobStore,
  NewJob,
  ReleasedBlobs,
  Retention,
  UploadState,
} from '../job-store.js';
import { randomBase62 } from '../random-id.js';

interface JobRow {
  id: string;
  tenant: string;
  key_id: string;
  status: string;
  model: string;
  request: string;
  audio_path: string | null;
  audio_seconds: number | null;
  webhook_url: string | null;
  webhook_secret_version: number | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  updated_at: string;
  lease_owner: string | null;
  lease_expires_at_ms: number | null;
  stalled_claims: number;
  ready_at_ms: number | null;
  progress: string | null;
  completed_audio_seconds: number;
  result_revision: number;
  partial_path: string | null;
  result_path: string | null;
  result_bytes: number | null;
  result_content_type: string | null;
  result_expires_at_ms: number | null;
  tombstone_until_ms: number | null;
  finished_at_ms: number | null;
  upload_state: string;
  upload_bytes: number | null;
  upload_expires_at_ms: number | null;
  complete_by_ms: number | null;
  retention_hours: number | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class SqliteJobStore implements JobStore {
  private readonly insert: Statement<[Record<string, unknown>]>;
  private readonly selectOwned: Statement<[string, string], JobRow>;
  private readonly selectById: Statement<[string], JobRow>;
  private readonly selectByBlob: Statement<[string, string, string], { one: number }>;
  private readonly claimTransaction: (workerId: string, nowMs: number, leaseMs: number) => JobRecord | null;
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
  ) => boolean;

  constructor(private readonly db: Database) {
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
      WHERE status IN ('accepted', 'running') AND (lease_expires_at_ms IS NULL OR lease_expires_at_ms <= ?)
      ORDER BY ready_at_ms, created_at, id LIMIT 1`);
    const lease = db.prepare(`UPDATE jobs SET status = 'running', lease_owner = @worker, lease_expires_at_ms = @until,
        stalled_claims = stalled_claims + (CASE WHEN lease_owner IS NULL THEN 0 ELSE 1 END),
        updated_at = (CASE WHEN status = 'running' THEN updated_at ELSE @at END)
      WHERE id = @id`);
    const claim = db.transaction((workerId: string, nowMs: number, leaseMs: number) => {
      const row = nextRunnable.get(nowMs);
      if (!row) return null;
      lease.run({ worker: workerId, until: nowMs + leaseMs, at: iso(nowMs), id: row.id });
      return toRecord(this.selectById.get(row.id)!);
    });
    // IMMEDIATE: the read and the lease are one step under the write lock, so two claimers never
    // take the same job.
    this.claimTransaction = (...args) => claim.immediate(...args);

    const accept = db.prepare(`UPDATE jobs SET status = 'accepted', ready_at_ms = @now, updated_at = @at
      WHERE id = @id AND status = 'awaiting_upload' AND upload_state = 'stored'`);
    const complete = db.transaction((id: string, tenant: string, nowMs: number): CompleteOutcome => {
      const row = this.selectOwned.get(id, tenant);
      if (!row) return { outcome: 'not_found' };
      if (row.status !== 'awaiting_upload') {
        // Only a job that had an upload slot and moved past it counts as completed before.
        return row.upload_state === 'stored' || row.upload_state === 'none'
          ? { outcome: row.status === 'failed' && row.error_code === 'job_expired' ? 'not_uploaded' : 'already', job: toRecord(row) }
          : { outcome: 'not_uploaded', job: toRecord(row) };
      }
      if (row.upload_state !== 'stored') return { outcome: 'not_uploaded', job: toRecord(row) };
      accept.run({ id, now: nowMs, at: iso(nowMs) });
      return { outcome: 'accepted', job: toRecord(this.selectById.get(id)!) };
    });
    this.completeTransaction = (...args) => complete.immediate(...args);

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
      return { id: row.id, paths: [row.audio_path, row.partial_path].filter((p): p is string => p !== null) };
    };
    const fail = db.transaction((id: string, from: FailFrom, error: FailError, retention: Retention, nowMs: number) => {
      const row = this.selectById.get(id);
      if (!row) return null;
      const allowed =
        'workerId' in from
          ? row.status === 'running' && row.lease_owner === from.workerId
          : row.status === from.status && (from.status !== 'awaiting_upload' || row.upload_state !== 'receiving');
      if (!allowed) return null;
      return markRowFailed(row, error, retention, nowMs);
    });
    this.failTransaction = (...args) => fail.immediate(...args);

    // Unlike `fail` from awaiting_upload, a slot receiving a file is closed too: the upload route
    // sees the job gone from awaiting_upload and discards what it was writing (storeUpload refuses).
    const openSlotsOfKey = db.prepare<[string], JobRow>(`SELECT * FROM jobs WHERE status = 'awaiting_upload' AND key_id = ?`);
    const closeSlots = db.transaction((keyId: string, error: FailError, retentionOf: (job: JobRecord) => Retention, nowMs: number) =>
      openSlotsOfKey.all(keyId).map((row) => markRowFailed(row, error, retentionOf(toRecord(row)), nowMs)),
    );
    this.closeSlotsTransaction = (...args) => closeSlots.immediate(...args);

    const dueResults = db.prepare<[number], JobRow>(`SELECT * FROM jobs
      WHERE result_expires_at_ms IS NOT NULL AND result_expires_at_ms <= ? AND result_path IS NOT NULL`);
    const clearResult = db.prepare(`UPDATE jobs SET result_path = NULL WHERE id = ?`);
    const expire = db.transaction((nowMs: number) => {
      const released: ReleasedBlobs[] = [];
      for (const row of dueResults.all(nowMs)) {
        clearResult.run(row.id);
        released.push({ id: row.id, paths: [row.result_path!] });
      }
      return released;
    });
    this.expireTransaction = (nowMs) => expire.immediate(nowMs);

    const markSucceeded = db.prepare(`UPDATE jobs SET status = 'succeeded', result_path = @path, result_bytes = @bytes,
        result_content_type = @type, audio_path = NULL, partial_path = NULL, lease_owner = NULL,
        lease_expires_at_ms = NULL, result_expires_at_ms = @expires, tombstone_until_ms = @tombstone,
        finished_at_ms = @now, updated_at = @at
      WHERE id = @id AND status = 'running' AND lease_owner = @worker`);
    // The outbox row of the webhook event: due at once (the first attempt is immediate).
    const insertEvent = db.prepare(`INSERT INTO webhook_deliveries (event_id, job_id, key_id, secret_version, url, body,
        state, next_attempt_at_ms, created_at_ms)
      VALUES (@event_id, @job_id, @key_id, @secret_version, @url, @body, 'pending', @now, @now)`);
    const succeed = db.transaction(
      (id: string, workerId: string, result: FinalResult, retention: Retention, nowMs: number, event: OutboxEvent | null) => {
        const won =
          markSucceeded.run({
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
        if (won && event) {
          insertEvent.run({
            event_id: event.eventId,
            job_id: id,
            key_id: event.keyId,
            secret_version: event.secretVersion,
            url: event.url,
            body: event.body,
            now: nowMs,
          });
        }
        return won;
      },
    );
    this.succeedTransaction = (...args) => succeed.immediate(...args);
  }

  create(job: NewJob, now = new Date()): JobRecord {
    const at = now.toISOString();
    const uploadState: UploadState = job.status === 'awaiting_upload' ? 'empty' : 'none';
    const row = {
      // 22 base62 characters: about 131 random bits, so ids cannot be guessed or enumerated.
      id: `job_${randomBase62(22)}`,
      tenant: job.tenant,
      key_id: job.keyId,
      status: job.status,
      model: 'svc-medical-1',
      request: JSON.stringify(job.request),
      audio_path: job.audioPath,
      audio_seconds: job.audioSeconds,
      webhook_url: job.webhookUrl,
      webhook_secret_version: job.webhookSecretVersion ?? null,
      created_at: at,
      updated_at: at,
      ready_at_ms: job.status === 'accepted' ? now.getTime() : null,
      upload_state: uploadState,
      upload_bytes: job.upload?.bytes ?? null,
      upload_expires_at_ms: job.upload?.expiresAtMs ?? null,
      complete_by_ms: job.upload?.completeByMs ?? null,
      retention_hours: job.retentionHours ?? null,
    };
    // Autocommit with synchronous=FULL: the row is on disk when run() returns.
    this.insert.run(row);
    return toRecord(this.selectById.get(row.id)!);
  }

  get(id: string, tenant: string): JobRecord | null {
    const row = this.selectOwned.get(id, tenant);
    return row ? toRecord(row) : null;
  }

  getById(id: string): JobRecord | null {
    const row = this.selectById.get(id);
    return row ? toRecord(row) : null;
  }

  beginUpload(id: string, nowMs: number): boolean {
    return (
      this.db
        .prepare(`UPDATE jobs SET upload_state = 'receiving'
          WHERE id = ? AND status = 'awaiting_upload' AND upload_state = 'empty' AND upload_expires_at_ms > ?`)
        .run(id, nowMs).changes === 1
    );
  }

  abandonUpload(id: string): void {
    this.db.prepare(`UPDATE jobs SET upload_state = 'empty' WHERE id = ? AND upload_state = 'receiving'`).run(id);
  }

  storeUpload(id: string, audioPath: string, nowMs: number): boolean {
    return (
      this.db
        .prepare(`UPDATE jobs SET upload_state = 'stored', audio_path = ?, updated_at = ?
          WHERE id = ? AND status = 'awaiting_upload' AND upload_state = 'receiving'`)
        .run(audioPath, iso(nowMs), id).changes === 1
    );
  }

  complete(id: string, tenant: string, nowMs: number): CompleteOutcome {
    return this.completeTransaction(id, tenant, nowMs);
  }

  claimNext(workerId: string, nowMs: number, leaseMs: number): JobRecord | null {
    return this.claimTransaction(workerId, nowMs, leaseMs);
  }

  heartbeat(id: string, workerId: string, nowMs: number, leaseMs: number): boolean {
    return (
      this.db
        .prepare(`UPDATE jobs SET lease_expires_at_ms = ? WHERE id = ? AND status = 'running' AND lease_owner = ?`)
        .run(nowMs + leaseMs, id, workerId).changes === 1
    );
  }

  commitChunk(id: string, workerId: string, chunk: ChunkProgress, nowMs: number): boolean {
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

  releaseLease(id: string, workerId: string, _nowMs: number): boolean {
    return (
      this.db
        .prepare(`UPDATE jobs SET lease_owner = NULL, lease_expires_at_ms = NULL WHERE id = ? AND lease_owner = ?`)
        .run(id, workerId).changes === 1
    );
  }

  succeed(id: string, workerId: string, result: FinalResult, retention: Retention, nowMs: number, event: OutboxEvent | null = null): boolean {
    return this.succeedTransaction(id, workerId, result, retention, nowMs, event);
  }

  fail(id: string, from: FailFrom, error: FailError, retention: Retention, nowMs: number): ReleasedBlobs | null {
    return this.failTransaction(id, from, error, retention, nowMs);
  }

  closeUploadSlotsOfKey(keyId: string, error: FailError, retentionOf: (job: JobRecord) => Retention, nowMs: number): ReleasedBlobs[] {
    return this.closeSlotsTransaction(keyId, error, retentionOf, nowMs);
  }

  recoverAfterRestart(_nowMs: number): { leases: number; uploads: number } {
    const recover = this.db.transaction(() => {
      // With one server per database, every lease at start belongs to a process that died.
      const leases = this.db
        .prepare(`UPDATE jobs SET lease_expires_at_ms = 0 WHERE lease_owner IS NOT NULL AND status = 'running'`)
        .run().changes;
      const uploads = this.db.prepare(`UPDATE jobs SET upload_state = 'empty' WHERE upload_state = 'receiving'`).run().changes;
      return { leases, uploads };
    });
    return recover.immediate();
  }

  overdueUploads(nowMs: number): string[] {
    return this.db
      .prepare<[number], { id: string }>(`SELECT id FROM jobs WHERE status = 'awaiting_upload' AND complete_by_ms <= ?`)
      .all(nowMs)
      .map((row) => row.id);
  }

  expireResults(nowMs: number): ReleasedBlobs[] {
    return this.expireTransaction(nowMs);
  }

  deleteEndedTombstones(nowMs: number): number {
    return this.db
      .prepare(`DELETE FROM jobs WHERE status IN ('succeeded', 'failed') AND tombstone_until_ms <= ?`)
      .run(nowMs).changes;
  }

  referencesBlob(path: string): boolean {
    return this.selectByBlob.get(path, path, path) !== undefined;
  }

  /** Whether any job still points at this audio file (kept for callers of the first version). */
  referencesAudio(path: string): boolean {
    return this.referencesBlob(path);
  }
}

type FailFrom = { workerId: string } | { status: 'awaiting_upload' | 'accepted' | 'running' };
type FailError = { code: JobFailureCode; message: string };
type CloseSlotsFn = (keyId: string, error: FailError, retentionOf: (job: JobRecord) => Retention, nowMs: number) => ReleasedBlobs[];
type ReleasedBlobsFn = (id: string, from: FailFrom, error: FailError, retention: Retention, nowMs: number) => ReleasedBlobs | null;

function toRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    keyId: row.key_id,
    status: row.status as JobStatus,
    model: row.model as JobRecord['model'],
    request: JSON.parse(row.request) as Record<string, unknown>,
    audioPath: row.audio_path,
    audioSeconds: row.audio_seconds,
    webhookUrl: row.webhook_url,
    webhookSecretVersion: row.webhook_secret_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    leaseOwner: row.lease_owner,
    leaseExpiresAtMs: row.lease_expires_at_ms,
    stalledClaims: row.stalled_claims,
    readyAtMs: row.ready_at_ms,
    progress: row.progress === null ? null : (JSON.parse(row.progress) as Record<string, unknown>),
    completedAudioSeconds: row.completed_audio_seconds,
    resultRevision: row.result_revision,
    partialPath: row.partial_path,
    resultPath: row.result_path,
    resultBytes: row.result_bytes,
    resultContentType: row.result_content_type,
    resultExpiresAtMs: row.result_expires_at_ms,
    tombstoneUntilMs: row.tombstone_until_ms,
    finishedAtMs: row.finished_at_ms,
    uploadState: row.upload_state as UploadState,
    uploadBytes: row.upload_bytes,
    uploadExpiresAtMs: row.upload_expires_at_ms,
    completeByMs: row.complete_by_ms,
    retentionHours: row.retention_hours,
  };
}
