// Audio longer than the inline boundary (or sent with a webhook_url) becomes a durable job: the
// upload's file moves into job storage, the job row is committed, and only then is it acknowledged.
// A retry under the same Idempotency-Key gets the first answer again; a failure leaves nothing behind.
// Its measured length is reserved first (billing's reservation): a 402 when it does not fit.
import { randomUUID } from 'node:crypto';

import type { TranscriptionRequest } from '../contract/transcription-request.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { type JobAuditLog, logJobCreated } from '../jobs/job-audit.js';
import type { StoredKnownSpeaker } from '../jobs/job-known-speakers.js';
import { serializeJobRequest } from '../jobs/job-request.js';
import { activeTraceParent } from '../jobs/job-trace.js';
import { jobUsageKey } from '../jobs/job-usage.js';
import { newJobId } from '../store/job-record.js';
import { claimIdempotencyKey } from './idempotency-claim.js';
import { directUploadFingerprint } from './request-fingerprint.js';
import { requireActiveKey } from './require-active-key.js';
import type { TranscribeUploadDeps } from './transcribe-upload-deps.js';
import type { TranscriptionAnswer } from './transcription-answer.js';
import type { TranscriptionConnection, UploadedAudio } from './transcription-connection.js';

export interface DirectJob {
  key: ApiKeyRecord;
  idempotencyKey: string | null;
  transcription: TranscriptionRequest;
  upload: UploadedAudio;
  durationSeconds: number;
  /** The webhook signing secret version the job pins (null without a webhook_url). */
  webhookSecretVersion: number | null;
  /** The request's known speakers, as the job stores them for its decoration. */
  knownSpeakers: StoredKnownSpeaker[];
  log: JobAuditLog;
}

type DirectJobDeps = Pick<TranscribeUploadDeps, 'keys' | 'jobs' | 'idempotency' | 'blobs' | 'queue' | 'billing'>;

export async function acceptDirectJob(
  direct: DirectJob,
  connection: Pick<TranscriptionConnection, 'jobAccepted'>,
  deps: DirectJobDeps,
): Promise<TranscriptionAnswer> {
  const { key, idempotencyKey, transcription } = direct;
  // The upload may have taken minutes: a key revoked meanwhile must not get a job (or its replay).
  await requireActiveKey(deps.keys, key.id);
  if (idempotencyKey) {
    const stored = await claimIdempotencyKey(deps.idempotency, {
      tenant: key.tenant,
      keyId: key.id,
      key: idempotencyKey,
      fingerprint: directUploadFingerprint(direct.upload),
    });
    if (stored) return { kind: 'stored', response: stored };
  }
  let audioPath: string | null = null;
  let jobCreated = false;
  // Named before it exists: its audio is reserved under its usage key, held by this process until
  // the row is committed accepted, then by the job (converted by its success).
  const jobId = newJobId();
  let reserved = false;
  try {
    // After the replay: a retry of a job created earlier gets its answer whatever the key's standing.
    await deps.billing.reserve(key, 'job', Math.round(direct.durationSeconds * 1000), jobUsageKey(jobId), jobId);
    reserved = true;
    // Durable before acknowledged: audio moved into job storage, then the job row committed.
    audioPath = await deps.blobs.forTenant(key.tenant).moveToJobAudio(direct.upload.path, randomUUID());
    const job = await deps.jobs.create({
      id: jobId,
      tenant: key.tenant,
      keyId: key.id,
      status: 'accepted',
      request: serializeJobRequest(transcription, { route: 'direct', ...(direct.knownSpeakers.length > 0 ? { knownSpeakers: direct.knownSpeakers } : {}) }),
      audioPath,
      audioSeconds: direct.durationSeconds,
      webhookUrl: transcription.webhookUrl,
      webhookSecretVersion: direct.webhookSecretVersion,
      traceParent: activeTraceParent(),
    });
    jobCreated = true;
    logJobCreated(direct.log, job);
    deps.queue.enqueue(job.id);
    const response = connection.jobAccepted(job);
    if (idempotencyKey) await deps.idempotency.complete(key.tenant, idempotencyKey, response);
    return { kind: 'stored', response };
  } catch (error) {
    // No job row, no audio: nothing is left behind for a request that was not acknowledged. Both
    // clean-ups are tried even when the store they need is the one that failed (the sweeper removes
    // audio this could not); the request's own error is what is answered.
    if (audioPath && !jobCreated) await deps.blobs.delete(audioPath).catch(() => {});
    if (reserved && !jobCreated) await deps.billing.release(jobUsageKey(jobId)).catch(() => {});
    if (idempotencyKey) await deps.idempotency.release(key.tenant, idempotencyKey).catch(() => {});
    throw error;
  }
}
