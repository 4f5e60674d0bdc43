// POST /v1/uploads/{job_id}: the embedded upload target of presigned job forms, behaving like S3's
// browser POST. Public (the signed form is the authority, so a browser can post it without the API
// key), but a form lives no longer than the key that issued it: a revoked key's forms are refused
// with 403 AccessDenied, even mid-upload. The form's fields come first (each once), then the file
// (as S3 requires); the fields are verified before a byte of the file is stored. The file streams to
// disk (memory stays flat for 1 GiB), must have exactly the signed length, and becomes the job's
// audio only once it is complete and durable: a refused, cut-off or failed upload leaves nothing
// behind and the form may be retried until it expires. A stored upload is a job audit line under the
// key that issued the form (the request itself carries none).
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { KEY_RECHECK_INTERVAL_MS } from '../../application/require-active-key.js';
import type { ServiceConfig } from '../../config/service-config.js';
import { MAX_JOB_UPLOAD_BYTES } from '../../contract/request-fields.js';
import { JOB_AUDIT_EVENTS, jobOwnerSubject, logJobAudit } from '../../jobs/job-audit.js';
import { closeUploadSlotsOfKey } from '../../jobs/key-revocation.js';
import { UploadFormRefused, verifyUploadForm } from '../../jobs/upload-policy.js';
import type { JobRecord, JobStore } from '../../store/job-store.js';
import type { KeyStore } from '../../store/key-store.js';
import type { TenantBlobs } from '../../store/sealed-blob-store.js';
import { multipartBoundary } from '../multipart-boundary.js';
import { isStorageFault } from '../storage-fault.js';
import { sendS3Error } from './s3-error-response.js';
import { refusalOf, UPLOAD_REFUSALS, UploadFormError } from './upload-form-refusals.js';
import { UploadMonitor } from './upload-monitor.js';
import { UPLOAD_JOB_AUDIO_SCHEMA } from './upload-schemas.js';

export interface PresignedUploadDeps {
  config: ServiceConfig;
  jobs: JobStore;
  blobs: TenantBlobs;
  /** The key that issued a form is read on every request: a revoked key's forms are refused. */
  keys: Pick<KeyStore, 'get'>;
  secret: Buffer;
  clock: () => Date;
}

/** System error codes that mean storage, not the request, failed: 503, retry later. */

export function presignedUploadRoutes(deps: PresignedUploadDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    await app.register(multipart);
    app.post<{ Params: { job_id: string } }>('/v1/uploads/:job_id', { config: { public: true }, schema: UPLOAD_JOB_AUDIO_SCHEMA }, (request, reply) =>
      receive(request, reply, deps),
    );
  };
}

async function receive(request: FastifyRequest<{ Params: { job_id: string } }>, reply: FastifyReply, deps: PresignedUploadDeps) {
  const jobId = request.params.job_id;
  let claimed = false;
  let stored = false;
  let tempPath: string | null = null;
  let target: Writable | null = null;
  let currentFile: { destroy(error?: Error): void } | null = null;
  let rejectStalled: (error: UploadFormError) => void = () => {};
  const stalled = new Promise<never>((_, reject) => (rejectStalled = reject));
  stalled.catch(() => {});
  const monitor = new UploadMonitor(request.raw, deps.config.upload, () => {
    const error = UPLOAD_REFUSALS.timeout();
    currentFile?.destroy(error);
    request.raw.unpipe();
    rejectStalled(error);
  });
  let failure: unknown = null;
  try {
    if (!request.isMultipart()) throw UPLOAD_REFUSALS.malformed();
    // Refused before busboy sees it (it throws a plain Error, an InternalError, above 256 characters).
    if (multipartBoundary(request.headers['content-type']) === null) throw UPLOAD_REFUSALS.malformed();
    const parts = request.parts({ limits: { fileSize: MAX_JOB_UPLOAD_BYTES + 1, files: 1, fields: 16, fieldSize: 16 * 1024, parts: 20 } });
    const fields: Record<string, string> = {};
    const readParts = async () => {
      for await (const part of parts) {
        if (part.type === 'field') {
          if (tempPath) throw UPLOAD_REFUSALS.malformed();
          // A cut value is never checked against the policy: it is not what the client sent.
          if (part.valueTruncated || part.fieldnameTruncated) throw UPLOAD_REFUSALS.fieldTooLarge();
          if (Object.hasOwn(fields, part.fieldname)) throw UPLOAD_REFUSALS.repeatedField();
          fields[part.fieldname] = String(part.value);
          continue;
        }
        if (part.fieldname !== 'file' || tempPath) throw UPLOAD_REFUSALS.malformed();
        const now = deps.clock().getTime();
        const policy = verifyUploadForm(deps.secret, fields, jobId, now);
        if (await issuerRevoked(deps, jobId)) throw UPLOAD_REFUSALS.keyRevoked();
        const slot = await claimSlot(deps.jobs, jobId, policy.contentLength, now);
        claimed = true;
        tempPath = deps.blobs.createUploadPath('presigned');
        currentFile = part.file as unknown as { destroy(error?: Error): void };
        let bytes = 0;
        let slotCheckDueAt = Date.now() + KEY_RECHECK_INTERVAL_MS;
        const counter = new Transform({
          transform(chunk: Buffer, _enc, done) {
            bytes += chunk.length;
            // Refused the moment it runs over, not after storing a gigabyte of the wrong file.
            if (bytes > policy.contentLength) return done(UPLOAD_REFUSALS.tooLarge());
            if (Date.now() < slotCheckDueAt) return done(null, chunk);
            // A key revoked while its file streams in stops the upload now, not after the last byte.
            slotCheckDueAt = Date.now() + KEY_RECHECK_INTERVAL_MS;
            slotRefusal(deps, jobId).then((refusal) => done(refusal, chunk), done);
          },
        });
        // Sealed as it streams in: the recording is never on disk plain, nor copied again to be sealed.
        const audioId = randomUUID();
        const tenantBlobs = deps.blobs.forTenant(slot.tenant);
        const sealing = await tenantBlobs.sealingJobAudio(audioId);
        target = deps.blobs.createUploadStream(tempPath);
        await pipeline(part.file, counter, sealing, target);
        if (part.file.truncated || bytes > policy.contentLength) throw UPLOAD_REFUSALS.tooLarge();
        if (bytes < policy.contentLength) throw UPLOAD_REFUSALS.tooSmall();
        currentFile = null;
        // Durable before acknowledged: flushed and moved into job storage, then the row says so.
        const audioPath = await tenantBlobs.keepSealedJobAudio(tempPath, audioId);
        if (!(await deps.jobs.storeUpload(jobId, audioPath, deps.clock().getTime()))) {
          await deps.blobs.delete(audioPath);
          throw (await slotRefusal(deps, jobId)) ?? UPLOAD_REFUSALS.used();
        }
        stored = true;
        logJobAudit(request.log, JOB_AUDIT_EVENTS.uploadReceived, jobOwnerSubject(slot), { bytes });
      }
    };
    await Promise.race([stalled, readParts()]);
    if (!stored) throw UPLOAD_REFUSALS.notOneFile();
  } catch (error) {
    failure = error;
  } finally {
    monitor.stop();
    // Cleanup happens before the answer, so a client that sees a refusal never finds a part of its
    // file on disk. A file stream destroyed before its open completed still creates the file: wait
    // for it to close, or the removal could run first and leave the partial file behind.
    const stream = target as Writable | null;
    if (stream && !stream.closed) {
      stream.destroy();
      await once(stream, 'close').catch(() => {});
    }
    if (tempPath) await rm(tempPath, { force: true }).catch(() => {});
    if (claimed && !stored) await deps.jobs.abandonUpload(jobId);
  }
  if (failure === null) return reply.code(204).send();
  const formError = toFormError(failure);
  if (formError.status >= 500 && !(failure instanceof UploadFormError)) request.log.error({ err: failure }, 'presigned upload failed');
  // The rest of the body will not be read: close the connection once the answer is out.
  reply.header('connection', 'close');
  return sendS3Error(request, reply, formError);
}

/**
 * Whether the key that issued the job's form is revoked (or gone). Read from the store on every
 * check, so a revocation by `svc-stt keys revoke` in another process counts at once. Finding it
 * revoked, the route closes the key's open slots itself, in case the revoking process did not get to.
 */
async function issuerRevoked(deps: PresignedUploadDeps, jobId: string): Promise<boolean> {
  const job = await deps.jobs.getById(jobId);
  if (!job) return false;
  const key = await deps.keys.get(job.keyId);
  if (key !== null && key.revokedAt === null) return false;
  if (key !== null) await closeUploadSlotsOfKey(deps, key, deps.clock().getTime());
  return true;
}

/** Why a slot this request holds can no longer take its file, or null while it still can. */
async function slotRefusal(deps: PresignedUploadDeps, jobId: string): Promise<UploadFormError | null> {
  if (await issuerRevoked(deps, jobId)) return UPLOAD_REFUSALS.keyRevoked();
  return (await deps.jobs.getById(jobId))?.status === 'awaiting_upload' ? null : UPLOAD_REFUSALS.used();
}

/** Takes the job's slot for this upload (returns the job as it was read then), or says in S3's terms why it cannot be used. */
async function claimSlot(jobs: JobStore, jobId: string, contentLength: number, nowMs: number): Promise<JobRecord> {
  if (await jobs.beginUpload(jobId, nowMs)) {
    const job = (await jobs.getById(jobId))!;
    if (job.uploadBytes === contentLength) return job;
    await jobs.abandonUpload(jobId);
    throw UPLOAD_REFUSALS.conditionFailed();
  }
  const job = await jobs.getById(jobId);
  if (!job || job.status !== 'awaiting_upload' || job.uploadState === 'stored' || job.uploadState === 'none') throw UPLOAD_REFUSALS.used();
  if (job.uploadState === 'receiving') throw UPLOAD_REFUSALS.busy();
  throw UPLOAD_REFUSALS.expired();
}

function toFormError(error: unknown): UploadFormError {
  if (error instanceof UploadFormError) return error;
  if (error instanceof UploadFormRefused) return refusalOf(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (isStorageFault(error)) return UPLOAD_REFUSALS.storage();
  if (error instanceof SyntaxError) return UPLOAD_REFUSALS.conditionFailed();
  if (typeof code === 'string' && (code.startsWith('FST_') || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE')) {
    return UPLOAD_REFUSALS.malformed();
  }
  if (error instanceof Error && /multipart|Boundary/i.test(error.message)) return UPLOAD_REFUSALS.malformed();
  return UPLOAD_REFUSALS.internal();
}
