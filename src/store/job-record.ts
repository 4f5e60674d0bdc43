// The pure half of the JobStore (kysely/kysely-job-store.ts): the new row, the decisions on a row it
// has read (may this caller fail it, what does `complete` answer, which blobs does a failure
// release) and the records it returns. No database here; the conditions its statements share are
// in kysely/job-conditions.ts.
import { type DecorationStatus, JOB_STATUSES, type JobFailureCode, type JobStatus } from '../domain/job-statuses.js';
import { JOB_MODEL } from '../domain/model-ids.js';
import { type CompleteOutcome, type FinalResult, type JobRecord, type NewJob, type ReleasedBlobs, type UploadState } from './job-store.js';
import { randomBase62 } from './random-id.js';
/** A row of `jobs`; `request` and `progress` are JSON text, *_ms columns integers. */
export interface JobRow {
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
  redacted_audio_path: string | null;
  unredacted_path: string | null;
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
  decoration: string | null;
  decoration_attempts: number;
  /** W3C traceparent of the request that created the job (src/jobs/job-trace.ts); null: not traced. */
  trace_parent: string | null;
}

/** The columns `create` writes; the others start at their defaults. */
export type NewJobRow = Pick<
  JobRow,
  | 'id'
  | 'tenant'
  | 'key_id'
  | 'status'
  | 'model'
  | 'request'
  | 'audio_path'
  | 'audio_seconds'
  | 'webhook_url'
  | 'webhook_secret_version'
  | 'created_at'
  | 'updated_at'
  | 'ready_at_ms'
  | 'upload_state'
  | 'upload_bytes'
  | 'upload_expires_at_ms'
  | 'complete_by_ms'
  | 'retention_hours'
  | 'trace_parent'
>;

export type FailFrom = { workerId: string } | { status: 'awaiting_upload' | 'accepted' | 'running' };
export type FailError = { code: JobFailureCode; message: string };

export const iso = (ms: number) => new Date(ms).toISOString();

/** 22 base62 characters: about 131 random bits, so ids cannot be guessed or enumerated. */
export function newJobId(): string {
  return `job_${randomBase62(22)}`;
}

export function newJobRow(job: NewJob, now: Date): NewJobRow {
  const at = now.toISOString();
  const uploadState: UploadState = job.status === 'awaiting_upload' ? 'empty' : 'none';
  return {
    id: job.id ?? newJobId(),
    tenant: job.tenant,
    key_id: job.keyId,
    status: job.status,
    model: JOB_MODEL,
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
    trace_parent: job.traceParent ?? null,
  };
}

/**
 * Whether `fail` from `from` may fail this row: a worker only the running job it holds; a status
 * caller only a job still in that status, and never a slot a file is streaming into (the upload
 * route owns it until it stores or abandons the file).
 */
export function mayFail(row: JobRow, from: FailFrom): boolean {
  return 'workerId' in from
    ? row.status === 'running' && row.lease_owner === from.workerId
    : row.status === from.status && (from.status !== 'awaiting_upload' || row.upload_state !== 'receiving');
}

/** The blobs a failed row no longer references (the caller deletes them after the commit). */
export function releasedByFailure(row: JobRow): ReleasedBlobs {
  return { id: row.id, paths: [row.audio_path, row.partial_path, row.unredacted_path].filter((p): p is string => p !== null) };
}

/** What `complete` answers for the caller's row when it does not accept it; null when it accepts it. */
export function completionWithoutAccept(row: JobRow): CompleteOutcome | null {
  if (row.status !== 'awaiting_upload') {
    // Only a job that had an upload slot and moved past it counts as completed before.
    return row.upload_state === 'stored' || row.upload_state === 'none'
      ? { outcome: row.status === 'failed' && row.error_code === 'job_expired' ? 'not_uploaded' : 'already', job: jobRecordOf(row) }
      : { outcome: 'not_uploaded', job: jobRecordOf(row) };
  }
  if (row.upload_state !== 'stored') return { outcome: 'not_uploaded', job: jobRecordOf(row) };
  return null;
}

export function jobRecordOf(row: JobRow): JobRecord {
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
    traceParent: row.trace_parent,
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
    redactedAudioPath: row.redacted_audio_path,
    unredactedPath: row.unredacted_path,
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
    decoration: row.decoration as DecorationStatus | null,
    decorationAttempts: row.decoration_attempts,
  };
}

/** Whether `workerId` may end this row's decoration: it is being decorated under that worker's lease. */
export function mayEndDecoration(row: JobRow, workerId: string): boolean {
  return row.status === 'succeeded' && row.decoration === 'processing' && row.lease_owner === workerId;
}

/**
 * The blobs a row no longer references once its decoration ended with `result`: its audio, its
 * provisional result and its previous result; never the new result itself.
 */
export function releasedByDecoration(row: JobRow, result: FinalResult): ReleasedBlobs {
  const paths = [row.audio_path, row.partial_path, row.result_path].filter((p): p is string => p !== null && p !== result.resultPath);
  return { id: row.id, paths: [...new Set(paths)] };
}

/** The blobs a row whose result expired releases: the result, its redacted audio and unredacted transcript, and what a decoration still kept. */
export function releasedByExpiry(
  row: Pick<JobRow, 'id' | 'result_path' | 'redacted_audio_path' | 'unredacted_path' | 'audio_path' | 'partial_path'>,
): ReleasedBlobs {
  return {
    id: row.id,
    paths: [row.result_path, row.redacted_audio_path, row.unredacted_path, row.audio_path, row.partial_path].filter((p): p is string => p !== null),
  };
}

/** Zero for every status: the shape of JobCounts.byStatus before a GROUP BY fills it. */
export function emptyStatusCounts(): Record<JobStatus, number> {
  return Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as Record<JobStatus, number>;
}

/** The column an upload slot's claim is checked against (JobStore.beginUpload's `until`). */
export function uploadDeadlineColumn(until: 'form_expiry' | 'complete_by' = 'form_expiry'): 'complete_by_ms' | 'upload_expires_at_ms' {
  return until === 'complete_by' ? 'complete_by_ms' : 'upload_expires_at_ms';
}
