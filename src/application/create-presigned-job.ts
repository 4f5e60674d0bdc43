// POST /v1/jobs: a job that waits for its audio, with a signed form to upload it by. Checked before
// any slot exists (the webhook admitted, the key still active, billing's word); a retry under the
// same Idempotency-Key gets the first answer again. With S3 the form is the bucket's own (the file
// never passes through an API process); else the embedded upload target's, signed the same way.
//
// Upload deadlines: the form is valid for `uploadExpirySeconds` (1 hour by default); a job not
// completed within COMPLETE_GRACE_MS (1 hour) after the form expires fails `job_expired`, and any
// audio it received is deleted then.
import type { UsageBilling } from '../billing/usage-billing.js';
import type { Profile } from '../contract/request-fields.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { type JobAuditLog, logJobCreated } from '../jobs/job-audit.js';
import { storedKnownSpeakers } from '../jobs/job-known-speakers.js';
import { serializeJobRequest, type StoredJobRequest } from '../jobs/job-request.js';
import { activeTraceParent } from '../jobs/job-trace.js';
import { signUploadForm } from '../jobs/upload-policy.js';
import type { IdempotencyStore, StoredResponse } from '../store/idempotency-store.js';
import { newJobId } from '../store/job-record.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import type { VoiceProfileStore } from '../store/voice-profile-store.js';
import type { WebhookAdmission } from '../webhooks/webhook-admission.js';
import { claimIdempotencyKey } from './idempotency-claim.js';
import { enrolledVoicesOf } from './known-speaker-references.js';
import { jobCreationFingerprint } from './request-fingerprint.js';
import { requireActiveKey } from './require-active-key.js';

export const DEFAULT_UPLOAD_EXPIRY_SECONDS = 3600;
export const COMPLETE_GRACE_MS = 3_600_000;

/**
 * A POST /v1/jobs body once its fields are checked: the request the job will run, and what the
 * client declares of the file it will upload (the upload slot admits exactly that).
 */
export interface JobCreation {
  request: StoredJobRequest;
  filename: string;
  contentType: string;
  contentLength: number;
}

// What this use case needs from the route that serves it, at the moments it needs it: a word once the
// request is admitted, the address of the embedded upload target, and the answer a new job gets,
// stored for an Idempotency-Key's retries. src/api implements it; the use case never sees how.

/** Where and how the client posts its file: a browser POST form. */
export interface UploadForm {
  url: string;
  fields: Record<string, string>;
}

export interface CreatedJob {
  job: JobRecord;
  upload: UploadForm;
  /** How long the form is valid from `now`. */
  expirySeconds: number;
  now: Date;
}

export interface JobCreationConnection {
  /** The request is checked and its webhook admitted: what it announces (a deprecated profile) applies from here on. */
  admitted(profile: Profile): void;
  /** The embedded upload target of a job's form, used when the blob store takes no uploads of its own. */
  embeddedUploadUrl(jobId: string): string;
  /** The answer to a job created now, as it will be given again to a retry with the same Idempotency-Key. */
  jobCreated(created: CreatedJob): StoredResponse;
}

export interface PresignedJobRequest {
  key: ApiKeyRecord;
  /** The request's id, for the audit lines of the voices it names. */
  requestId: string;
  idempotencyKey: string | null;
  creation: JobCreation;
  /** The body as sent: what a retry under the same Idempotency-Key must repeat. */
  body: unknown;
  /** Where the job audit lines of the request go. */
  log: JobAuditLog;
}

export interface CreatePresignedJobDeps {
  jobs: JobStore;
  blobs: TenantBlobs;
  idempotency: IdempotencyStore;
  uploadSecret: Buffer;
  clock: () => Date;
  uploadExpirySeconds?: number;
  /** Request-time webhook rules: the signing secret version a job pins, or a WebhookAdmissionError. */
  webhooks: Pick<WebhookAdmission, 'admit'>;
  /** Read again before a slot is created: a revoked key gets none. */
  keys: Pick<KeyStore, 'get'>;
  /** Decides whether new work is accepted (BillingBlockedError otherwise). */
  billing: Pick<UsageBilling, 'requireAllowance'>;
  /** The tenants' enrolled voices a job names by id (`known_speakers`). */
  voices: Pick<VoiceProfileStore, 'get'>;
}

/** The job's answer: the one given now, or the one stored for an earlier request with the same Idempotency-Key. */
export async function createPresignedJob(
  request: PresignedJobRequest,
  connection: JobCreationConnection,
  deps: CreatePresignedJobDeps,
): Promise<StoredResponse> {
  const { key, idempotencyKey, creation } = request;
  const webhookSecretVersion = creation.request.webhookUrl ? await deps.webhooks.admit(key.id, creation.request.webhookUrl) : null;
  connection.admitted(creation.request.profile);
  // Webhook admission may have waited on DNS: a slot is never opened for a key revoked meanwhile.
  await requireActiveKey(deps.keys, key.id);
  if (idempotencyKey) {
    const fingerprint = jobCreationFingerprint(request.body);
    const stored = await claimIdempotencyKey(deps.idempotency, { tenant: key.tenant, keyId: key.id, key: idempotencyKey, fingerprint, now: deps.clock() });
    if (stored) return stored;
  }
  try {
    // After the replay: a retry of a job created earlier gets its answer whatever the key's standing.
    // The audio's length is not known before it is uploaded: what is used already decides.
    await deps.billing.requireAllowance(key, 'job');
    // Enrolled voices are the tenant's or the request is refused, before any slot exists; the job keeps their ids.
    const knownSpeakers = storedKnownSpeakers(await enrolledVoicesOf({ ...request, enrolledVoiceIds: creation.request.enrolledVoiceIds }, deps.voices));
    const now = deps.clock();
    const expirySeconds = deps.uploadExpirySeconds ?? DEFAULT_UPLOAD_EXPIRY_SECONDS;
    const expiresAtMs = now.getTime() + expirySeconds * 1000;
    // The form is signed before the row exists: signing may fail (S3 credentials unavailable), and a
    // job the client never heard of must not be left waiting for an upload.
    const id = newJobId();
    const policy = { jobId: id, contentType: creation.contentType, contentLength: creation.contentLength, expiresAtMs };
    const upload = deps.blobs.directUploads
      ? await deps.blobs.directUploads.form(policy)
      : { url: connection.embeddedUploadUrl(id), fields: signUploadForm(deps.uploadSecret, policy) };
    const job = await deps.jobs.create(
      {
        id,
        tenant: key.tenant,
        keyId: key.id,
        status: 'awaiting_upload',
        request: serializeJobRequest(creation.request, {
          route: 'presigned',
          filename: creation.filename,
          contentType: creation.contentType,
          contentLength: creation.contentLength,
          ...(knownSpeakers.length > 0 ? { knownSpeakers } : {}),
        }),
        audioPath: null,
        audioSeconds: null,
        webhookUrl: creation.request.webhookUrl,
        webhookSecretVersion,
        traceParent: activeTraceParent(),
        upload: { bytes: creation.contentLength, expiresAtMs, completeByMs: expiresAtMs + COMPLETE_GRACE_MS },
        retentionHours: key.retentionHours,
      },
      now,
    );
    logJobCreated(request.log, job);
    const response = connection.jobCreated({ job, upload, expirySeconds, now });
    if (idempotencyKey) await deps.idempotency.complete(key.tenant, idempotencyKey, response);
    return response;
  } catch (error) {
    if (idempotencyKey) await deps.idempotency.release(key.tenant, idempotencyKey);
    throw error;
  }
}
