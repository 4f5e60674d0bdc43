// The /v1/jobs routes: create a job with a presigned upload slot, complete it, poll it (long poll,
// inline results), download its final or provisional result, and refuse DELETE. Every route is
// owner-scoped: another tenant's job is answered exactly like an unknown one (404).
//
// Long poll: `wait` is capped at MAX_WAIT_SECONDS (30 s; larger values are served as 30). The poll
// answers as soon as the job's status changes or a new provisional revision is published, else when
// the wait runs out; a finished job is answered at once.
//
// Upload deadlines: the presigned form is valid for `uploadExpirySeconds` (1 hour by default); a job
// not completed within COMPLETE_GRACE_MS (1 hour) after the form expires fails `job_expired`, and any
// audio it received is deleted then.
//
// Audit: creation, acceptance, an upload collected from the bucket and every read of result content
// are logged as job audit lines (src/jobs/job-audit.ts) with the acting key's id.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceConfig } from '../../config/service-config.js';
import type { JobEvents } from '../../jobs/job-events.js';
import type { JobHousekeeping } from '../../jobs/job-housekeeping.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import { collectDirectUpload } from '../../jobs/direct-upload.js';
import { JOB_AUDIT_EVENTS, jobOwnerSubject, logJobAudit, logJobCreated, requestKeySubject } from '../../jobs/job-audit.js';
import { serializeJobRequest } from '../../jobs/job-request.js';
import { newJobId } from '../../store/job-record.js';
import { signUploadForm } from '../../jobs/upload-policy.js';
import type { BlobStore } from '../../store/blob-store.js';
import type { IdempotencyStore, StoredResponse } from '../../store/idempotency-store.js';
import type { JobRecord, JobStore } from '../../store/job-store.js';
import type { KeyStore } from '../../store/key-store.js';
import type { UsageBilling } from '../../billing/usage-billing.js';
import { ApiError } from '../api-error.js';
import { KEY_RECHECK_INTERVAL_MS, requireKeyStillActive } from '../authenticate.js';
import { applyProfileDeprecation } from '../deprecation.js';
import { idempotencyKeyOf, replay } from './idempotency.js';
import { parseJobCreation } from './job-creation-request.js';
import { COMPLETE_JOB_SCHEMA, CREATE_JOB_SCHEMA, DELETE_JOB_SCHEMA, GET_JOB_PARTIAL_SCHEMA, GET_JOB_RESULT_SCHEMA, GET_JOB_SCHEMA } from './job-schemas.js';
import { INLINE_RESULT_LIMIT_BYTES, MIN_AUDIO_SECONDS_ADVISORY, isPastTombstone, jobUrls, jobView, resultExpired } from './job-view.js';

export const MAX_WAIT_SECONDS = 30;
export const DEFAULT_UPLOAD_EXPIRY_SECONDS = 3600;
export const COMPLETE_GRACE_MS = 3_600_000;

export interface JobRouteDeps {
  config: ServiceConfig;
  jobs: JobStore;
  blobs: BlobStore;
  idempotency: IdempotencyStore;
  queue: JobQueue;
  events: JobEvents;
  housekeeping: JobHousekeeping;
  uploadSecret: Buffer;
  clock: () => Date;
  uploadExpirySeconds?: number;
  /** Request-time webhook rules (src/webhooks/webhook-admission.ts): the secret version to pin, or a 422. */
  webhooks: { admit(keyId: string, url: string): Promise<number> };
  /** Read again while a long poll waits, and before a slot is created: a revoked key gets 401. */
  keys: Pick<KeyStore, 'get'>;
  /** Decides whether new work is accepted (402 billing_blocked otherwise). */
  billing: Pick<UsageBilling, 'requireAllowance'>;
}

type JobRequest = FastifyRequest<{ Params: { job_id: string }; Querystring: Record<string, string | undefined> }>;

const notFound = () => new ApiError(404, 'not_found', 'no job with this id exists for this key');

export function jobRoutes(deps: JobRouteDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    // The body is checked against its schema after the contract's own checks (attachValidation), which
    // tell a malformed request (400) from an unsupported value (422).
    app.post('/v1/jobs', { schema: CREATE_JOB_SCHEMA, attachValidation: true }, (request, reply) => createJob(request, reply, deps));
    app.post('/v1/jobs/:job_id/complete', { schema: COMPLETE_JOB_SCHEMA }, (request: JobRequest, reply) => completeJob(request, reply, deps));
    app.get('/v1/jobs/:job_id', { schema: GET_JOB_SCHEMA }, (request: JobRequest, reply) => pollJob(request, reply, deps));
    app.get('/v1/jobs/:job_id/result', { schema: GET_JOB_RESULT_SCHEMA }, (request: JobRequest, reply) => downloadResult(request, reply, deps));
    app.get('/v1/jobs/:job_id/partial', { schema: GET_JOB_PARTIAL_SCHEMA }, (request: JobRequest, reply) => downloadPartial(request, reply, deps));
    // Registered so the answer is the contract's code, not the frame's generic 405.
    app.delete('/v1/jobs/:job_id', { schema: DELETE_JOB_SCHEMA }, async () => {
      throw new ApiError(405, 'cancellation_not_supported', 'jobs cannot be cancelled in v1', { allow: 'GET' });
    });
  };
}

async function createJob(request: FastifyRequest, reply: FastifyReply, deps: JobRouteDeps) {
  const key = request.apiKey!;
  const idempotencyKey = idempotencyKeyOf(request);
  const creation = parseJobCreation(request.body, key);
  if (request.validationError) throw request.validationError;
  const webhookSecretVersion = creation.request.webhookUrl ? await deps.webhooks.admit(key.id, creation.request.webhookUrl) : null;
  applyProfileDeprecation(reply, creation.request.profile);
  // Webhook admission may have waited on DNS: a slot is never opened for a key revoked meanwhile.
  await requireKeyStillActive(request, deps.keys);
  const fingerprint = createHash('sha256').update(JSON.stringify({ route: 'jobs', body: canonical(request.body) })).digest('hex');
  if (idempotencyKey) {
    const claim = await deps.idempotency.begin(key.tenant, idempotencyKey, fingerprint, deps.clock());
    if (claim.state === 'completed') return replay(reply, claim.response);
    if (claim.state === 'conflict') throw new ApiError(409, 'idempotency_conflict', 'this Idempotency-Key was used with different content');
    if (claim.state === 'in_progress') throw new ApiError(409, 'idempotency_in_progress', 'a request with this Idempotency-Key is in progress');
  }
  try {
    // After the replay: a retry of a job created earlier gets its answer whatever the key's standing.
    // The audio's length is not known before it is uploaded: what is used already decides.
    await deps.billing.requireAllowance(key, 'job');
    const now = deps.clock();
    const expirySeconds = deps.uploadExpirySeconds ?? DEFAULT_UPLOAD_EXPIRY_SECONDS;
    const expiresAtMs = now.getTime() + expirySeconds * 1000;
    // The form is signed before the row exists: signing may fail (S3 credentials unavailable), and a
    // job the client never heard of must not be left waiting for an upload.
    const id = newJobId();
    const policy = { jobId: id, contentType: creation.contentType, contentLength: creation.contentLength, expiresAtMs };
    // With S3 the form is the bucket's own (the file never passes through an API process); else
    // the embedded upload route's, signed with the server's secret in the same manner.
    const upload = deps.blobs.directUploads
      ? await deps.blobs.directUploads.form(policy)
      : { url: `${deps.config.publicBaseUrl}/v1/uploads/${id}`, fields: signUploadForm(deps.uploadSecret, policy) };
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
        }),
        audioPath: null,
        audioSeconds: null,
        webhookUrl: creation.request.webhookUrl,
        webhookSecretVersion,
        upload: { bytes: creation.contentLength, expiresAtMs, completeByMs: expiresAtMs + COMPLETE_GRACE_MS },
        retentionHours: key.retentionHours,
      },
      now,
    );
    logJobCreated(request.log, job);
    const urls = jobUrls(deps.config.publicBaseUrl, job.id);
    const response: StoredResponse = {
      status: 201,
      headers: { location: urls.poll, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({
        ...jobView(job, deps.config.publicBaseUrl, now.getTime()),
        upload: { method: 'POST', url: upload.url, fields: upload.fields, expires_in_seconds: expirySeconds },
        complete_url: urls.complete,
        poll_url: urls.poll,
        min_audio_seconds: MIN_AUDIO_SECONDS_ADVISORY,
        max_audio_seconds: Math.floor(deps.config.maxAudioSeconds),
      }),
    };
    if (idempotencyKey) await deps.idempotency.complete(key.tenant, idempotencyKey, response);
    return replay(reply, response);
  } catch (error) {
    if (idempotencyKey) await deps.idempotency.release(key.tenant, idempotencyKey);
    throw error;
  }
}

async function completeJob(request: JobRequest, reply: FastifyReply, deps: JobRouteDeps) {
  const job = await loadJob(request, deps);
  const now = deps.clock().getTime();
  const { directUploads } = deps.blobs;
  const collected = directUploads ? await collectDirectUpload({ jobs: deps.jobs, blobs: deps.blobs, directUploads }, job, now) : null;
  if (collected === 'mismatch') {
    throw new ApiError(409, 'upload_not_complete', 'the uploaded file does not have the declared content_length_bytes and content_type; it was removed: upload the right file with the same form');
  }
  // The bucket took the file without the service seeing it: this is when the service receives it.
  if (collected === 'stored') logJobAudit(request.log, JOB_AUDIT_EVENTS.uploadReceived, jobOwnerSubject(job), { bytes: job.uploadBytes ?? undefined });
  // Completing is what hands the work over: refused once usage is blocked. A job already accepted
  // answers as before (a retried complete, like result retrieval, keeps working).
  if (job.status === 'awaiting_upload') await deps.billing.requireAllowance(request.apiKey!, 'job');
  const outcome = await deps.jobs.complete(request.params.job_id, request.apiKey!.tenant, now);
  if (outcome.outcome === 'not_found') throw notFound();
  if (outcome.outcome === 'not_uploaded') {
    const message =
      outcome.job.status === 'failed'
        ? 'the upload slot of this job is closed (deadline passed or key revoked); create a new job'
        : 'no complete upload is stored for this job; POST the file to upload.url first';
    throw new ApiError(409, 'upload_not_complete', message);
  }
  if (outcome.outcome === 'accepted') {
    logJobAudit(request.log, JOB_AUDIT_EVENTS.accepted, requestKeySubject(outcome.job.id, request.apiKey!));
    deps.queue.enqueue(outcome.job.id);
    deps.events.notify(outcome.job.id);
  }
  return reply.code(202).send(jobView(outcome.job, deps.config.publicBaseUrl, now));
}

async function pollJob(request: JobRequest, reply: FastifyReply, deps: JobRouteDeps) {
  // The route schema admits only whole seconds and true/false.
  const waitSeconds = Math.min(Number(request.query.wait ?? 0), MAX_WAIT_SECONDS);
  const include = request.query.include_result;
  let job = await loadJob(request, deps);
  if (waitSeconds > 0 && (job.status !== 'succeeded' && job.status !== 'failed')) {
    // The client leaving ends the wait (ServerResponse 'close' fires on a dropped connection).
    const left = new AbortController();
    const onClose = () => left.abort();
    reply.raw.once('close', onClose);
    try {
      const deadline = Date.now() + waitSeconds * 1000;
      const seen = `${job.status}/${job.resultRevision}`;
      while (!left.signal.aborted) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) break;
        // Woken at least every KEY_RECHECK_INTERVAL_MS: a revocation (made by the CLI in another
        // process, which no in-process notice reports) ends the wait with 401, and a change made there
        // (the key's upload slots closed) is seen by the tenant's other keys without waiting it out.
        await deps.events.waitForChange(job.id, Math.min(remaining, KEY_RECHECK_INTERVAL_MS), left.signal);
        await requireKeyStillActive(request, deps.keys);
        job = (await loadJob(request, deps)) ?? job;
        if (`${job.status}/${job.resultRevision}` !== seen) break;
      }
    } finally {
      reply.raw.off('close', onClose);
    }
  }
  const now = deps.clock().getTime();
  let inline: { content: Buffer } | { tooLarge: true } | null = null;
  if (include === 'true' && job.status === 'succeeded' && !resultExpired(job, now)) {
    inline = (job.resultBytes ?? Infinity) <= INLINE_RESULT_LIMIT_BYTES ? { content: await deps.blobs.readResult(job.resultPath!) } : { tooLarge: true };
    if ('content' in inline) logResultRead(request, job.id, 'poll');
  }
  return reply.code(200).send(jobView(job, deps.config.publicBaseUrl, now, inline));
}

async function downloadResult(request: JobRequest, reply: FastifyReply, deps: JobRouteDeps) {
  const job = await loadJob(request, deps);
  if (job.status !== 'succeeded') throw new ApiError(404, 'not_found', 'this job has no final result yet; poll the job');
  if (resultExpired(job, deps.clock().getTime())) throw new ApiError(404, 'not_found', "this job's result has expired");
  logResultRead(request, job.id, 'result');
  return reply.code(200).type(job.resultContentType ?? 'application/octet-stream').send(deps.blobs.openResult(job.resultPath!));
}

async function downloadPartial(request: JobRequest, reply: FastifyReply, deps: JobRouteDeps) {
  const job = await loadJob(request, deps);
  if (job.status !== 'running' || !job.partialPath) throw new ApiError(404, 'not_found', 'no provisional result is available; poll the job');
  // Read whole (it is replaced by rename, never written in place): the revision read is consistent.
  const content = await deps.blobs.readResult(job.partialPath).catch(() => null);
  if (!content) throw new ApiError(404, 'not_found', 'no provisional result is available; poll the job');
  logResultRead(request, job.id, 'partial');
  return reply.code(200).type('application/json; charset=utf-8').send(content);
}

/** Transcript content is about to be served to the request's key. */
function logResultRead(request: JobRequest, jobId: string, via: 'result' | 'poll' | 'partial'): void {
  logJobAudit(request.log, JOB_AUDIT_EVENTS.resultRead, requestKeySubject(jobId, request.apiKey!), { via });
}

/** The caller's job with its time-driven transitions applied; 404 for unknown, foreign or ended ones. */
async function loadJob(request: JobRequest, deps: JobRouteDeps): Promise<JobRecord> {
  const now = deps.clock().getTime();
  let job = await deps.jobs.get(request.params.job_id, request.apiKey!.tenant);
  if (!job || isPastTombstone(job, now)) throw notFound();
  if (await deps.housekeeping.expireUpload(job, now)) job = (await deps.jobs.get(job.id, job.tenant)) ?? job;
  return job;
}

/** JSON with object keys sorted, so the same request fingerprints the same whatever the key order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}
