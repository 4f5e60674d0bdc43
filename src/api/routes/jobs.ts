// The /v1/jobs routes: create a job with a presigned upload slot, complete it, poll it (long poll,
// inline results), download its final or provisional result or its redacted audio, and refuse DELETE. Each route reads the
// request, calls its use case in src/application/ and writes the answer. Every route is
// owner-scoped: a job is the key's that created it, and another key's job (another tenant's or the
// same tenant's) is answered exactly like an unknown one (404, src/application/find-own-job.ts). A
// stored Idempotency-Key answer is given again only to the key it was given to (idempotency-claim.ts).
//
// Long poll: `wait` is capped at MAX_WAIT_SECONDS (30 s; larger values are served as 30). The poll
// answers as soon as the job's status changes or a new provisional revision is published, else when
// the wait runs out; a finished job is answered at once.
//
// Creating a job (src/application/create-presigned-job.ts) sets its upload deadlines.
//
// Audit: creation, acceptance, an upload collected from the bucket and every read of result content
// are logged as job audit lines (src/jobs/job-audit.ts) with the acting key's id.
import type { Readable } from 'node:stream';

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { completeJobUpload } from '../../application/complete-job-upload.js';
import type { JobCreationConnection } from '../../application/create-presigned-job.js';
import { createPresignedJob } from '../../application/create-presigned-job.js';
import { pollJob } from '../../application/poll-job.js';
import { readJobPartial, readJobRedactedAudio, readJobResult, readJobUnredactedResult } from '../../application/read-job-outputs.js';
import type { UsageBilling } from '../../billing/usage-billing.js';
import type { ServiceConfig } from '../../config/service-config.js';
import type { JobEvents } from '../../jobs/job-events.js';
import type { JobHousekeeping } from '../../jobs/job-housekeeping.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import type { IdempotencyStore } from '../../store/idempotency-store.js';
import type { JobStore } from '../../store/job-store.js';
import type { KeyStore } from '../../store/key-store.js';
import type { TenantBlobs } from '../../store/sealed-blob-store.js';
import type { VoiceProfileStore } from '../../store/voice-profile-store.js';
import { API_REFUSALS } from '../api-refusals.js';
import { applyProfileDeprecation } from '../deprecation.js';
import { createdJobAnswer } from './created-job-answer.js';
import { idempotencyKeyOf, replay } from './idempotency.js';
import { parseJobCreation } from './job-creation-request.js';
import {
  COMPLETE_JOB_SCHEMA,
  CREATE_JOB_SCHEMA,
  DELETE_JOB_SCHEMA,
  GET_JOB_PARTIAL_SCHEMA,
  GET_JOB_REDACTED_AUDIO_SCHEMA,
  GET_JOB_RESULT_SCHEMA,
  GET_JOB_SCHEMA,
  GET_JOB_UNREDACTED_RESULT_SCHEMA,
} from './job-schemas.js';
import { jobView, REDACTED_AUDIO_CONTENT_TYPE } from './job-view.js';

export const MAX_WAIT_SECONDS = 30;

export interface JobRouteDeps {
  config: ServiceConfig;
  jobs: JobStore;
  blobs: TenantBlobs;
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
  /** Decides whether new work is accepted (402 billing_blocked otherwise), reserving a completed job's audio. */
  billing: Pick<UsageBilling, 'requireAllowance' | 'reserve' | 'release'>;
  /** The tenants' enrolled voices a job names by id (`known_speakers`). */
  voices: Pick<VoiceProfileStore, 'get'>;
}

type JobRequest = FastifyRequest<{ Params: { job_id: string }; Querystring: Record<string, string | undefined> }>;

export function jobRoutes(deps: JobRouteDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    // The body is checked against its schema after the contract's own checks (attachValidation), which
    // tell a malformed request (400) from an unsupported value (422).
    app.post('/v1/jobs', { schema: CREATE_JOB_SCHEMA, attachValidation: true }, (request, reply) => createJob(request, reply, deps));
    app.post('/v1/jobs/:job_id/complete', { schema: COMPLETE_JOB_SCHEMA }, (request: JobRequest, reply) => completeJob(request, reply, deps));
    app.get('/v1/jobs/:job_id', { schema: GET_JOB_SCHEMA }, (request: JobRequest, reply) => getJob(request, reply, deps));
    app.get('/v1/jobs/:job_id/result', { schema: GET_JOB_RESULT_SCHEMA }, (request: JobRequest, reply) => downloadResult(request, reply, deps));
    app.get('/v1/jobs/:job_id/partial', { schema: GET_JOB_PARTIAL_SCHEMA }, (request: JobRequest, reply) => downloadPartial(request, reply, deps));
    app.get('/v1/jobs/:job_id/redacted_audio', { schema: GET_JOB_REDACTED_AUDIO_SCHEMA }, (request: JobRequest, reply) =>
      downloadRedactedAudio(request, reply, deps),
    );
    app.get('/v1/jobs/:job_id/unredacted_result', { schema: GET_JOB_UNREDACTED_RESULT_SCHEMA }, (request: JobRequest, reply) =>
      downloadUnredactedResult(request, reply, deps),
    );
    // Registered so the answer is the contract's code, not the frame's generic 405.
    app.delete('/v1/jobs/:job_id', { schema: DELETE_JOB_SCHEMA }, async () => {
      throw API_REFUSALS.cancellationNotSupported();
    });
  };
}

async function createJob(request: FastifyRequest, reply: FastifyReply, deps: JobRouteDeps) {
  const key = request.apiKey!;
  const idempotencyKey = idempotencyKeyOf(request);
  const creation = parseJobCreation(request.body, key);
  if (request.validationError) throw request.validationError;
  const connection: JobCreationConnection = {
    admitted: (profile) => applyProfileDeprecation(reply, profile),
    embeddedUploadUrl: (jobId) => `${deps.config.publicBaseUrl}/v1/uploads/${jobId}`,
    jobCreated: (created) => createdJobAnswer(created, deps.config),
  };
  return replay(
    reply,
    await createPresignedJob({ key, requestId: request.id, idempotencyKey, creation, body: request.body, log: request.log }, connection, deps),
  );
}

async function completeJob(request: JobRequest, reply: FastifyReply, deps: JobRouteDeps) {
  const { job, nowMs } = await completeJobUpload({ key: request.apiKey!, jobId: request.params.job_id, log: request.log }, deps);
  return reply.code(202).send(jobView(job, deps.config.publicBaseUrl, nowMs));
}

async function getJob(request: JobRequest, reply: FastifyReply, deps: JobRouteDeps) {
  // The route schema admits only whole seconds and true/false.
  const waitSeconds = Math.min(Number(request.query.wait ?? 0), MAX_WAIT_SECONDS);
  const includeResult = request.query.include_result === 'true';
  const { job, nowMs, inline } = await pollJob(
    { key: request.apiKey!, jobId: request.params.job_id, waitSeconds, includeResult, watchClientLeaving: watchResponseClose(reply), log: request.log },
    deps,
  );
  return reply.code(200).send(jobView(job, deps.config.publicBaseUrl, nowMs, inline));
}

async function downloadResult(request: JobRequest, reply: FastifyReply, deps: JobRouteDeps) {
  return sendResult(reply, await readJobResult({ key: request.apiKey!, jobId: request.params.job_id, log: request.log }, deps));
}

/** A result (or its unredacted copy) in the format the job asked for. */
function sendResult(reply: FastifyReply, { job, content }: { job: { resultContentType: string | null }; content: Readable }) {
  return reply
    .code(200)
    .type(job.resultContentType ?? 'application/octet-stream')
    .send(content);
}

async function downloadPartial(request: JobRequest, reply: FastifyReply, deps: JobRouteDeps) {
  const content = await readJobPartial({ key: request.apiKey!, jobId: request.params.job_id, log: request.log }, deps);
  return reply.code(200).type('application/json; charset=utf-8').send(content);
}

async function downloadRedactedAudio(request: JobRequest, reply: FastifyReply, deps: JobRouteDeps) {
  const content = await readJobRedactedAudio({ key: request.apiKey!, jobId: request.params.job_id, log: request.log }, deps);
  return reply.code(200).type(REDACTED_AUDIO_CONTENT_TYPE).send(content);
}

async function downloadUnredactedResult(request: JobRequest, reply: FastifyReply, deps: JobRouteDeps) {
  return sendResult(reply, await readJobUnredactedResult({ key: request.apiKey!, jobId: request.params.job_id, log: request.log }, deps));
}

/** A client that leaves ends its wait: the response's 'close' fires on a dropped connection. */
function watchResponseClose(reply: FastifyReply) {
  return (abort: AbortController) => {
    const onClose = () => abort.abort();
    reply.raw.once('close', onClose);
    return () => {
      reply.raw.off('close', onClose);
    };
  };
}
