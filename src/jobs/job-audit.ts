// The access audit trail of jobs (issue 13): one structured log line per step of a job's life, saying
// which job, which key and which tenant, so "who created, uploaded, ran and read this job, and when"
// can be answered from the logs alone. The logs must never hold what a job contains (transcript text,
// file names, prompts, webhook URLs, error messages that may quote the input), so a line carries ids
// and only the details below: numbers and names from closed sets, copied field by field, never a
// record or a request spread into the line.
import type { JobFailureCode, JobStatus } from '../domain/job-statuses.js';
import type { JobRecord } from '../store/job-store.js';
/** Every audit event, declared once: log readers, tests and docs/OPERATIONS.md match on these names. */
export const JOB_AUDIT_EVENTS = {
  /** A job row exists (`status`: awaiting_upload for /v1/jobs, accepted when it came with its audio). */
  created: 'job.created',
  /** The presigned upload is stored (embedded upload route, or collected from the bucket at complete). */
  uploadReceived: 'job.upload_received',
  /** `POST /v1/jobs/{id}/complete` queued the job. */
  accepted: 'job.accepted',
  /** A worker leased the job for its next chunk. */
  claimed: 'job.claimed',
  /** A chunk's text is committed (the last chunk's with the success). */
  chunkDone: 'job.chunk_done',
  succeeded: 'job.succeeded',
  /** `errorCode` only: failure messages may describe the input. */
  failed: 'job.failed',
  /** A succeeded job's speakers were attached (`decoration: done`) or given up (`unavailable`). */
  decorated: 'job.decorated',
  /** Result content was served to `keyId` (`via`: result download, inline in a poll, provisional, redacted audio). */
  resultRead: 'job.result_read',
} as const;

export type JobAuditEvent = (typeof JOB_AUDIT_EVENTS)[keyof typeof JOB_AUDIT_EVENTS];

/** The message of every audit line: filter on it, then on `audit`. */
export const JOB_AUDIT_MESSAGE = 'job audit';

/**
 * Whom a line is about. `keyId` is the key that acted for steps made by a request, else the key that
 * created the job (the same key: jobs are owner-scoped, src/application/find-own-job.ts).
 */
export interface JobAuditSubject {
  jobId: string;
  keyId: string;
  tenantId: string;
}

export interface JobAuditDetails {
  status?: JobStatus;
  /** Bytes of the stored upload. */
  bytes?: number;
  /** 0 for a job's first chunk. */
  chunkIndex?: number;
  /** Seconds of audio in this chunk. */
  chunkSeconds?: number;
  /** Seconds of audio transcribed so far. */
  completedAudioSeconds?: number;
  audioSeconds?: number;
  /** Worker wall time over all of the job's chunks. */
  processingSeconds?: number;
  errorCode?: JobFailureCode;
  via?: 'result' | 'poll' | 'partial' | 'redacted_audio' | 'unredacted_result';
  decoration?: 'done' | 'unavailable';
  /** On success: an unredacted transcript was kept beside the redacted result (`redact_output`); never its content. */
  unredactedKept?: true;
}

/** The allow-list of detail fields: anything else handed over (a record passed by mistake) is not logged. */
const DETAIL_FIELDS = [
  'status',
  'bytes',
  'chunkIndex',
  'chunkSeconds',
  'completedAudioSeconds',
  'audioSeconds',
  'processingSeconds',
  'errorCode',
  'via',
  'decoration',
  'unredactedKept',
] as const satisfies ReadonlyArray<keyof JobAuditDetails>;

/** What an audit line is written to: the app's (pino) logger, or a request's child of it. */
export interface JobAuditLog {
  info(details: object, message: string): void;
}

/** The subject of a worker or housekeeping step: the job's own key and tenant. */
export function jobOwnerSubject(job: Pick<JobRecord, 'id' | 'keyId' | 'tenant'>): JobAuditSubject {
  return { jobId: job.id, keyId: job.keyId, tenantId: job.tenant };
}

/** The subject of a step a request made: the request's key. */
export function requestKeySubject(jobId: string, key: { id: string; tenant: string }): JobAuditSubject {
  return { jobId, keyId: key.id, tenantId: key.tenant };
}

export function logJobAudit(log: JobAuditLog | null | undefined, event: JobAuditEvent, subject: JobAuditSubject, details: JobAuditDetails = {}): void {
  if (!log) return;
  const line: Record<string, unknown> = { audit: event, jobId: subject.jobId, keyId: subject.keyId, tenantId: subject.tenantId };
  for (const field of DETAIL_FIELDS) if (details[field] !== undefined) line[field] = details[field];
  log.info(line, JOB_AUDIT_MESSAGE);
}

/** `job.created`, for every route that creates a job (/v1/jobs, and /v1/audio/transcriptions when it answers 202). */
export function logJobCreated(log: JobAuditLog | null | undefined, job: Pick<JobRecord, 'id' | 'keyId' | 'tenant' | 'status'>): void {
  logJobAudit(log, JOB_AUDIT_EVENTS.created, jobOwnerSubject(job), { status: job.status });
}

/** Seconds rounded to milliseconds: the line says how much, not float noise. */
export function auditSeconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
