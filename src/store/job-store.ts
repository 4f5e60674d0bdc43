// Transcription jobs: the durable record behind every job, and the state machine's transitions as
// atomic, conditional store operations. Every transition names the state it starts from (and, for
// worker transitions, the lease that authorizes it), so a transition that lost a race changes
// nothing and reports false: a job can never be completed twice or moved by a worker that lost it.
// All times the lifecycle compares are milliseconds since the epoch, passed in by the caller, so a
// test clock drives expiry exactly as the wall clock does.
//
// Decoration: a job whose text is final may still have work attached afterwards (speaker labels of
// a long diarized job). It becomes `succeeded` at once, with `decoration = 'processing'`, keeping its
// audio and provisional result and the worker's lease: the decorating worker holds a lease on the
// succeeded row as on a running one, and `endDecoration` replaces the stored result. A worker that
// dies mid-decoration loses its lease as any lease is lost (expiry, or its instance reaped), and
// `claimDecoration` hands the decoration to another worker: it is resumed, never stuck.
import type { DecorationStatus, JobFailureCode, JobStatus } from '../domain/job-statuses.js';
import type { JOB_MODEL } from '../domain/model-ids.js';
import type { MeteredWork } from './usage-record.js';

/**
 * The presigned upload slot of a `POST /v1/jobs` job: `none` for jobs created with their audio,
 * `empty` until a file arrives, `receiving` while one streams in (one at a time), `stored` once the
 * file is durable in job storage.
 */
export type UploadState = 'none' | 'empty' | 'receiving' | 'stored';

export interface JobRecord {
  id: string;
  tenant: string;
  keyId: string;
  status: JobStatus;
  model: typeof JOB_MODEL;
  /** The validated request (format, language, vocabulary, ...), as JSON-safe data. */
  request: Record<string, unknown>;
  /** Durable audio location in the blob store (null once deleted). */
  audioPath: string | null;
  audioSeconds: number | null;
  webhookUrl: string | null;
  /** The signing-secret version pinned when the job was accepted (null without a webhook). */
  webhookSecretVersion: number | null;
  /** The trace the job's creation belongs to (a W3C traceparent), continued by its worker; null: not traced. */
  traceParent: string | null;
  createdAt: string;
  updatedAt: string;
  errorCode: string | null;
  errorMessage: string | null;

  /** Worker holding the job, and until when (ms); null when nobody does. */
  leaseOwner: string | null;
  leaseExpiresAtMs: number | null;
  /** Claims of this job that ended without progress (a crash, a lost lease); reset by progress. */
  stalledClaims: number;
  /** Queue position: runnable jobs are claimed oldest `readyAtMs` first. */
  readyAtMs: number | null;
  /** The worker's carry-over between chunks (decided language, accumulated timings), JSON-safe. */
  progress: Record<string, unknown> | null;
  completedAudioSeconds: number;
  /** Revision of the provisional result at `partialPath` (0: none yet). */
  resultRevision: number;
  partialPath: string | null;

  resultPath: string | null;
  /** The redacted copy of the audio (`redact_audio`), kept and released with the result; null: none made. */
  redactedAudioPath: string | null;
  /**
   * `redact_output=redacted_and_unredacted`: the unredacted transcript, provisional while the job runs,
   * final once it succeeded; released with the result (or the failure). Null: none asked or none yet.
   */
  unredactedPath: string | null;
  resultBytes: number | null;
  resultContentType: string | null;
  /** When the final result (or a failed job's record) stops being served. */
  resultExpiresAtMs: number | null;
  /** When the record itself goes (polling answers 404 from then on). */
  tombstoneUntilMs: number | null;
  finishedAtMs: number | null;

  uploadState: UploadState;
  /** The exact byte length the upload slot accepts. */
  uploadBytes: number | null;
  uploadExpiresAtMs: number | null;
  /** An `awaiting_upload` job not completed by then fails `job_expired`. */
  completeByMs: number | null;
  /** Result retention chosen at creation (hours); null: decided when the job ends. */
  retentionHours: number | null;

  /** Decoration of a succeeded job's result (see above); null: nothing pending, or never requested. */
  decoration: DecorationStatus | null;
  /** Claims of the decoration so far, the first one (by `succeed`) included; 0 without one. */
  decorationAttempts: number;
}

export interface NewJob {
  /** A fresh id from newJobId(), when the caller must name the job before it exists (its upload form); else one is made. */
  id?: string;
  tenant: string;
  keyId: string;
  status: 'accepted' | 'awaiting_upload';
  request: Record<string, unknown>;
  audioPath: string | null;
  audioSeconds: number | null;
  webhookUrl: string | null;
  webhookSecretVersion?: number | null;
  /** For `awaiting_upload` jobs: the slot's exact length and deadlines. */
  upload?: { bytes: number; expiresAtMs: number; completeByMs: number };
  retentionHours?: number;
  traceParent?: string | null;
}

export interface ChunkProgress {
  progress: Record<string, unknown>;
  completedAudioSeconds: number;
  audioSeconds: number | null;
  /** The new provisional result, or null to keep the current one. */
  partialPath: string | null;
  /** With `redact_output=redacted_and_unredacted`: the new provisional unredacted transcript (absent or null: kept as it is). */
  unredactedPath?: string | null;
}

export interface FinalResult {
  resultPath: string;
  resultBytes: number;
  contentType: string;
  /** `succeed` only: the redacted copy of the audio made with the result (a decoration keeps it as it is). */
  redactedAudioPath?: string | null;
  /** `succeed` only: the unredacted transcript kept beside a redacted result (`redact_output`), replacing the provisional one. */
  unredactedPath?: string | null;
}

/**
 * The end event of a job with a webhook, handed to `succeed` (or `fail`) so that the event is written
 * to the delivery outbox in the same transaction that ends the job: an event exists exactly when its
 * job ended that way, whatever crashes.
 */
export interface OutboxEvent {
  eventId: string;
  keyId: string;
  secretVersion: number;
  url: string;
  /** The exact bytes every attempt sends (and signs). */
  body: string;
}

/**
 * A decoration `succeed` leaves pending: the worker keeps its lease for `leaseMs`. What the decoration
 * reads may be recorded with it: the final carry-over (`progress`, replacing the row's) and a
 * provisional result holding what the final one lacks (`partialPath`, replacing the row's as a new
 * revision, as commitChunk does; the previous one is the caller's to delete after the commit).
 */
export interface PendingDecoration {
  leaseMs: number;
  progress?: Record<string, unknown> | null;
  partialPath?: string | null;
}

/**
 * How a decoration ended, for `endDecoration`: `done` (attached) or `unavailable` (given up), with
 * the result the job serves from then on (the decorated one, or the undecorated one rewritten).
 */
export interface DecorationOutcome {
  status: 'done' | 'unavailable';
  result: FinalResult;
  /**
   * Passages the decoration marked review_required: added to the job's usage event (metered with its
   * success) in the same transaction, so they are counted once, by the worker whose decoration ends.
   */
  reviewRequired?: { usageEventKey: string; passages: number };
}

export interface Retention {
  resultExpiresAtMs: number;
  tombstoneUntilMs: number;
}

export type CompleteOutcome =
  | { outcome: 'accepted'; job: JobRecord }
  /** Already completed earlier: a retried complete call is answered with the job as it is. */
  | { outcome: 'already'; job: JobRecord }
  | { outcome: 'not_uploaded'; job: JobRecord }
  | { outcome: 'not_found' };

/** Blob paths a job row held when it changed, for the caller to delete after the commit. */
export interface ReleasedBlobs {
  id: string;
  paths: string[];
}

/** Store options: uploads received through this store belong to this instance (null: to none, e.g. the CLI). */
export interface JobStoreOptions {
  instanceId?: string | null;
}

export interface JobStore {
  /** Durably inserts the job (committed before it returns). */
  create(job: NewJob, now?: Date): Promise<JobRecord>;
  /** Tenant-scoped lookup: another tenant's job is null (the key's ownership is src/application/find-own-job.ts's check). */
  get(id: string, tenant: string): Promise<JobRecord | null>;
  /** Unscoped lookup, for callers whose authority is not a tenant (a signed upload form, the worker). */
  getById(id: string): Promise<JobRecord | null>;

  /**
   * `empty` -> `receiving` while the slot is open; false when it is not (used, busy, expired, gone).
   * The slot is open until the form expires, or with `until: 'complete_by'` until the job's
   * complete-by deadline: a file already posted to the bucket (whose form the bucket checked) is
   * collected at `complete`, which the contract allows until then.
   */
  beginUpload(id: string, nowMs: number, options?: { until?: 'form_expiry' | 'complete_by' }): Promise<boolean>;
  /** `receiving` -> `empty`: the upload failed, the form may be used again until it expires. */
  abandonUpload(id: string): Promise<void>;
  /** `receiving` -> `stored` with the durable audio path; false when the job moved on meanwhile. */
  storeUpload(id: string, audioPath: string, nowMs: number): Promise<boolean>;
  /** `awaiting_upload` with a stored upload -> `accepted`, queued. */
  complete(id: string, tenant: string, nowMs: number): Promise<CompleteOutcome>;

  /** Takes the runnable job that has waited longest and leases it to `workerId`. */
  claimNext(workerId: string, nowMs: number, leaseMs: number): Promise<JobRecord | null>;
  /**
   * Extends a held lease: of a `running` job, or of a succeeded one being decorated; false when the
   * lease is no longer this worker's.
   */
  heartbeat(id: string, workerId: string, nowMs: number, leaseMs: number): Promise<boolean>;
  /** Records one processed chunk, releases the lease and sends the job to the back of the queue. */
  commitChunk(id: string, workerId: string, chunk: ChunkProgress, nowMs: number): Promise<boolean>;
  /**
   * Gives a lease back without progress, whatever the job's status: a running job keeps its place
   * in the queue; a decoration given back is claimable again at once.
   */
  releaseLease(id: string, workerId: string, nowMs: number): Promise<boolean>;
  /**
   * `running` (leased by `workerId`) -> `succeeded`; clears the audio and provisional paths. With an
   * event, the event joins the webhook outbox in the same transaction. With `decoration`, the job
   * succeeds all the same (its event too) but is left to be decorated: `decoration = 'processing'`
   * (its first attempt), the audio and provisional paths kept (or the provisional one and the
   * carry-over replaced, see PendingDecoration), and the lease kept by `workerId` for `leaseMs` more.
   * With `usage`, the job's work is recorded in the usage ledger in the same transaction (once: a
   * job whose event is recorded already records nothing more).
   */
  succeed(
    id: string,
    workerId: string,
    result: FinalResult,
    retention: Retention,
    nowMs: number,
    event?: OutboxEvent | null,
    decoration?: PendingDecoration | null,
    usage?: MeteredWork | null,
  ): Promise<boolean>;
  /**
   * Takes the decoration whose lease is free (never held, given back, or expired) that has waited
   * longest, and leases it to `workerId`: one more decoration attempt. Jobs whose result expired
   * are never claimed (nothing left to decorate).
   */
  claimDecoration(workerId: string, nowMs: number, leaseMs: number): Promise<JobRecord | null>;
  /**
   * Ends the decoration `workerId` holds: `decoration` -> null (`done`) or `unavailable`, the result
   * replaced by `outcome.result`, the audio and provisional paths cleared, the lease released.
   * Returns the blobs the row no longer references (audio, provisional result, and the previous
   * result unless it is the new one), or null when the job is not being decorated under this
   * worker's lease (nothing changes).
   */
  endDecoration(id: string, workerId: string, outcome: DecorationOutcome, nowMs: number): Promise<ReleasedBlobs | null>;
  /**
   * -> `failed` from `from`: a leased `running` job (workerId given) or an `awaiting_upload` one.
   * Clears the audio and provisional paths; returns the paths it cleared, or null when the job was
   * not in that state. With an event, the event joins the webhook outbox in the same transaction.
   */
  fail(
    id: string,
    from: { workerId: string } | { status: 'awaiting_upload' | 'accepted' | 'running' },
    error: { code: JobFailureCode; message: string },
    retention: Retention,
    nowMs: number,
    event?: OutboxEvent | null,
  ): Promise<ReleasedBlobs | null>;

  /**
   * Every `awaiting_upload` job of `keyId` -> `failed` with `error`, whatever its upload slot holds
   * (empty, a file streaming in, a stored file): the key's presigned forms die with the key. One
   * transaction; `retentionOf` gives each job's retention. Returns the paths to delete, per job.
   */
  closeUploadSlotsOfKey(
    keyId: string,
    error: { code: JobFailureCode; message: string },
    retentionOf: (job: JobRecord) => Retention,
    nowMs: number,
  ): Promise<ReleasedBlobs[]>;

  /**
   * Work of instances no longer registered (src/store/instance-registry.ts) is released: their job
   * leases expire now (the next claim counts a stalled claim), so do their decoration leases (the
   * decoration is claimable at once), and uploads they were receiving reopen their slots. Leases
   * name their instance ('<instance id>/<slot>'); a lease or an upload whose instance is registered
   * is never touched. Returns the counts.
   */
  releaseWorkOfDeadInstances(nowMs: number): Promise<{ leases: number; uploads: number }>;
  /** Ids of `awaiting_upload` jobs past their complete-by deadline. */
  overdueUploads(nowMs: number): Promise<string[]>;
  /**
   * Results past retention: paths cleared (the record stays as a tombstone); returns what to delete.
   * A job still being decorated loses its audio and provisional result too, and its decoration
   * (null, lease released): nothing is left to decorate.
   */
  expireResults(nowMs: number): Promise<ReleasedBlobs[]>;
  /**
   * Deletes records whose tombstone has ended, and the settled webhook events (delivered or given up)
   * of jobs no longer kept: an event lives as long as its job, or until it settles when that is later
   * (a redelivery asked for at the end). Returns how many records.
   */
  deleteEndedTombstones(nowMs: number): Promise<number>;
  /** Whether any job row points at this blob (audio, provisional or final result). */
  referencesBlob(path: string): Promise<boolean>;
  /** Jobs per status, and how many a worker could claim now (the queue depth of /metrics). */
  jobCounts(nowMs: number): Promise<JobCounts>;
}

export interface JobCounts {
  byStatus: Record<JobStatus, number>;
  claimable: number;
}
