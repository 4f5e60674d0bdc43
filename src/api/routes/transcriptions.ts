// POST /v1/audio/transcriptions (and /v1/audio/translations, whisper's translate task): receive and store the upload, validate the fields, check the audio,
// then answer inline (200) or hand a durable job to the queue (202). The uploaded file is gone when
// the request ends, whatever the outcome (moved into job storage for a 202).
import { createHash, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { DECODED_SAMPLE_RATE, decodeAudio, isAudioError, probeAudio, sniffFile, type AudioContainer } from '../../audio/index.js';
import type { ServiceConfig } from '../../config/service-config.js';
import type { Engine } from '../../engine/engine.js';
import { EngineError, isAbortError } from '../../engine/engine-errors.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import { logJobCreated } from '../../jobs/job-audit.js';
import { serializeJobRequest } from '../../jobs/job-request.js';
import { responseBody } from '../../contract/response-body.js';
import type { PipelineEngines } from '../../pipeline/pipeline-engine.js';
import { runTranscription } from '../../pipeline/run-transcription.js';
import { parseTranscriptionFields, type TranscriptionRequest } from '../../contract/transcription-request.js';
import { parseTranslationFields } from '../../contract/translation-request.js';
import type { BlobStore } from '../../store/blob-store.js';
import type { IdempotencyStore, StoredResponse } from '../../store/idempotency-store.js';
import { JOB_MODEL, type JobStore } from '../../store/job-store.js';
import type { ApiKeyRecord, KeyStore } from '../../store/key-store.js';
import type { UsageBilling } from '../../billing/usage-billing.js';
import { UnsupportedDetectedLanguage } from '../../pipeline/pipeline-errors.js';
import { unsupportedLanguageCounters, usageCountersOf } from '../../pipeline/usage-counters.js';
import type { UsageRoute } from '../../store/usage-record.js';
import { ApiError } from '../api-error.js';
import { requireKeyStillActive } from '../authenticate.js';
import { capacityUnavailable, serviceUnavailable } from '../capacity.js';
import { applyProfileDeprecation } from '../deprecation.js';
import { JOB_OBJECT } from './job-view.js';
import { receiveUpload } from './receive-upload.js';
import { streamedAnswer } from './transcription-stream.js';
import { idempotencyKeyOf, replay } from './idempotency.js';
import { CREATE_TRANSCRIPTION_SCHEMA, CREATE_TRANSLATION_SCHEMA } from './transcription-schemas.js';

import { type ModelId } from '../../domain/model-ids.js';
export interface TranscriptionRouteDeps {
  config: ServiceConfig;
  engines: Record<ModelId, Engine>;
  /** The pipeline's engine calls per model, VAD included (src/pipeline/pipeline-engine.ts). */
  stages: PipelineEngines;
  modelBuilds: Record<ModelId, string>;
  keys: KeyStore;
  jobs: JobStore;
  idempotency: IdempotencyStore;
  blobs: BlobStore;
  queue: JobQueue;
  /** Request-time webhook rules (src/webhooks/webhook-admission.ts): the secret version to pin, or a 422. */
  webhooks: { admit(keyId: string, url: string): Promise<number> };
  /** Decides whether new work is accepted (402 billing_blocked otherwise) and meters inline answers. */
  billing: Pick<UsageBilling, 'requireAllowance' | 'meter'>;
}

export function transcriptionRoutes(deps: TranscriptionRouteDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    await app.register(multipart);
    app.post('/v1/audio/transcriptions', { schema: CREATE_TRANSCRIPTION_SCHEMA }, (request, reply) => handle(request, reply, deps, parseTranscriptionFields));
    // Whisper's translate task: the same upload, checks and routing (inline or a job), English text out.
    app.post('/v1/audio/translations', { schema: CREATE_TRANSLATION_SCHEMA }, (request, reply) => handle(request, reply, deps, parseTranslationFields));
  };
}

/** Reads a route's form fields into the request the pipeline runs. */
type ParseFields = (fields: Record<string, string>, key: ApiKeyRecord) => TranscriptionRequest;

async function handle(request: FastifyRequest, reply: FastifyReply, deps: TranscriptionRouteDeps, parseFields: ParseFields) {
  const { config } = deps;
  const key = request.apiKey!;
  const idempotencyKey = idempotencyKeyOf(request);
  // Before the upload is read: a blocked account does not send 100 MB to be refused. A retry of a
  // job created earlier is let through to its replay (acceptJob decides billing after it).
  const replayable = idempotencyKey !== null && (await deps.idempotency.hasResponse(key.tenant, idempotencyKey));
  if (!replayable) await deps.billing.requireAllowance(key, 'inline');
  const tempPath = deps.blobs.createUploadPath('direct');
  try {
    const upload = await receiveUpload(request, deps.blobs, tempPath, { ...config.upload, maxBytes: config.maxUploadBytes }).catch((error) => {
      // The rest of the body will not be read: close the connection once the answer is out, rather
      // than leave the client's half-sent request holding it open.
      reply.header('connection', 'close');
      throw error;
    });
    const transcription = parseFields(upload.fields, key);
    const webhookSecretVersion = transcription.webhookUrl ? await deps.webhooks.admit(key.id, transcription.webhookUrl) : null;
    applyProfileDeprecation(reply, transcription.profile);

    // The bytes decide the type, not the name or the declared content type.
    const container = await sniffFile(upload.path);
    if (!container) throw new ApiError(415, 'unsupported_media_type', 'the audio container is not supported');
    // A client that hangs up stops its own decoding and transcription.
    const abort = new AbortController();
    const onClose = () => {
      if (!reply.sent) abort.abort();
    };
    request.raw.on('close', onClose);
    try {
      // Audio that may be answered inline is decoded straight away, capped at the boundary: its length
      // is then exact and no separate probe runs (a probe costs a process start, ~10 % of a short
      // request). Only audio longer than the boundary is probed, to route it to a job or refuse it.
      const pcm = transcription.webhookUrl ? null : await decodeUpToBoundary(upload.path, container, config, abort.signal);
      if (!pcm && (transcription.stream || transcription.logprobs)) {
        const asked = transcription.stream ? 'stream=true' : 'include[]=logprobs';
        throw new ApiError(422, 'invalid_request', `${asked} is answered on this connection for audio up to ${config.inlineBoundarySeconds} seconds; longer audio becomes a job: send it without ${asked}`);
      }
      const durationSeconds = pcm ? pcm.length / DECODED_SAMPLE_RATE : (await probeAudio(upload.path, { timeoutMs: 60_000, container }).catch(audioErrorToApi)).durationSeconds;
      if (durationSeconds > config.maxAudioSeconds) {
        throw new ApiError(413, 'upload_too_large', `the audio is longer than ${config.maxAudioSeconds} seconds`);
      }
      if (durationSeconds < config.minAudioSeconds) {
        throw new ApiError(422, 'invalid_request', `the audio is shorter than ${config.minAudioSeconds} second`);
      }
      if (pcm) {
        // Now that its length is known: work that would cross the allowance (or the cap, or the credit) is refused before it starts.
        await deps.billing.requireAllowance(key, inlineRoute(transcription), Math.round(durationSeconds * 1000));
        // Decoded audio lives in memory from here on: the uploaded file goes now, not after the answer.
        await rm(tempPath, { force: true });
        // Idempotency-Key is accepted and ignored on inline answers (contract rule 6).
        return await answerInline(request, reply, deps, transcription, pcm, abort);
      }
      return await acceptJob(request, reply, deps, transcription, upload, durationSeconds, idempotencyKey, webhookSecretVersion);
    } finally {
      request.raw.off('close', onClose);
    }
  } finally {
    await rm(tempPath, { force: true });
  }
}

/** The decoded audio when it fits within the inline boundary; null when it is longer. */
async function decodeUpToBoundary(path: string, container: AudioContainer, config: ServiceConfig, signal: AbortSignal) {
  try {
    return await decodeAudio(path, { maxSeconds: config.inlineBoundarySeconds, timeoutMs: config.decodeTimeoutMs, container, signal });
  } catch (error) {
    if (isAudioError(error) && error.code === 'audio_too_long') return null;
    return audioErrorToApi(error);
  }
}

async function answerInline(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: TranscriptionRouteDeps,
  transcription: TranscriptionRequest,
  pcm: Float32Array,
  abort: AbortController,
) {
  const engine = deps.engines[transcription.model];
  const stats = engine.stats;
  if (stats.queued >= stats.maxQueue) throw capacityUnavailable(5);
  const key = request.apiKey!;
  const streamed = transcription.stream ? streamedAnswer(request, reply, abort) : null;
  const ctx = { requestId: request.id, model: transcription.model, modelBuild: deps.modelBuilds[transcription.model] };
  let outcome;
  try {
    outcome = await runTranscription(
      pcm,
      transcription,
      {
        ...deps.stages[transcription.model],
        decoding: deps.config.decoding,
        sampleRate: DECODED_SAMPLE_RATE,
        dictionaryFor: (family) => deps.keys.getDictionary(key.id, family),
      },
      { signal: abort.signal, ...(streamed ? { onTextDelta: streamed.onTextDelta } : {}) },
    ).catch(async (error: unknown) => {
      // Counted for the operator's safety figures (nothing billed); the refusal stands whatever the ledger does.
      if (error instanceof UnsupportedDetectedLanguage) {
        const counters = unsupportedLanguageCounters(transcription);
        await deps.billing.meter(key, { eventKey: `inline:${request.id}`, route: inlineRoute(transcription), model: transcription.model, ...counters }).catch(() => {});
      }
      return engineErrorToApi(error);
    });
  } catch (error) {
    if (!streamed?.opened) throw error;
    streamed.fail(error);
    return reply;
  }
  // Metered once the work is done and before the answer goes out: an answer is never given unmetered
  // (a ledger that cannot be written fails the request as any store outage does).
  const metered = deps.billing.meter(key, { eventKey: `inline:${request.id}`, route: inlineRoute(transcription), model: transcription.model, ...usageCountersOf(outcome, transcription) });
  if (streamed) {
    try {
      await metered;
    } catch (error) {
      streamed.fail(error);
      return reply;
    }
    streamed.finish(outcome, transcription.responseFormat, ctx);
    return reply;
  }
  await metered;
  const { contentType, body } = responseBody(outcome, transcription.responseFormat, ctx, { logprobs: transcription.logprobs });
  return reply.code(200).type(contentType).send(body);
}

function inlineRoute(transcription: TranscriptionRequest): UsageRoute {
  return transcription.task === 'translate' ? 'translation' : 'inline';
}

async function acceptJob(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: TranscriptionRouteDeps,
  transcription: TranscriptionRequest,
  upload: { path: string; sha256: string; fields: Record<string, string> },
  durationSeconds: number,
  idempotencyKey: string | null,
  webhookSecretVersion: number | null,
) {
  const key = request.apiKey!;
  // The upload may have taken minutes: a key revoked meanwhile must not get a job (or its replay).
  await requireKeyStillActive(request, deps.keys);
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ route: 'direct', sha256: upload.sha256, fields: Object.entries(upload.fields).sort() }))
    .digest('hex');
  if (idempotencyKey) {
    const claim = await deps.idempotency.begin(key.tenant, idempotencyKey, fingerprint);
    if (claim.state === 'completed') return replay(reply, claim.response);
    if (claim.state === 'conflict') throw new ApiError(409, 'idempotency_conflict', 'this Idempotency-Key was used with different content');
    if (claim.state === 'in_progress') throw new ApiError(409, 'idempotency_in_progress', 'a request with this Idempotency-Key is in progress');
  }
  let audioPath: string | null = null;
  let jobCreated = false;
  try {
    // After the replay: a retry of a job created earlier gets its answer whatever the key's standing.
    await deps.billing.requireAllowance(key, 'job', Math.round(durationSeconds * 1000));
    // Durable before acknowledged: audio moved into job storage, then the job row committed.
    audioPath = await deps.blobs.moveToJobAudio(upload.path, randomUUID());
    const job = await deps.jobs.create({
      tenant: key.tenant,
      keyId: key.id,
      status: 'accepted',
      request: serializeJobRequest(transcription, { route: 'direct' }),
      audioPath,
      audioSeconds: durationSeconds,
      webhookUrl: transcription.webhookUrl,
      webhookSecretVersion,
    });
    jobCreated = true;
    logJobCreated(request.log, job);
    deps.queue.enqueue(job.id);
    const pollUrl = `${deps.config.publicBaseUrl}/v1/jobs/${job.id}`;
    const response: StoredResponse = {
      status: 202,
      headers: { location: pollUrl, 'retry-after': '5', 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({
        id: job.id,
        object: JOB_OBJECT,
        status: job.status,
        created_at: job.createdAt,
        model: JOB_MODEL,
        poll_url: pollUrl,
        webhook: { requested: job.webhookUrl !== null },
      }),
    };
    if (idempotencyKey) await deps.idempotency.complete(key.tenant, idempotencyKey, response);
    return replay(reply, response);
  } catch (error) {
    // No job row, no audio: nothing is left behind for a request that was not acknowledged. Both
    // clean-ups are tried even when the store they need is the one that failed (the sweeper removes
    // audio this could not); the request's own error is what is answered.
    if (audioPath && !jobCreated) await deps.blobs.delete(audioPath).catch(() => {});
    if (idempotencyKey) await deps.idempotency.release(key.tenant, idempotencyKey).catch(() => {});
    throw error;
  }
}

function audioErrorToApi(error: unknown): never {
  if (isAudioError(error)) {
    if (error.code === 'unsupported_container') throw new ApiError(415, 'unsupported_media_type', 'the audio container is not supported');
    if (error.code === 'audio_too_long') throw new ApiError(413, 'upload_too_large', 'the audio is longer than this route accepts');
    if (error.code === 'decode_timeout') throw new ApiError(503, 'service_unavailable', 'decoding the audio took too long', { 'retry-after': '30' });
    throw new ApiError(400, 'invalid_request', 'the audio could not be decoded');
  }
  throw error;
}

function engineErrorToApi(error: unknown): never {
  if (error instanceof EngineError && error.code === 'queue_full') throw capacityUnavailable(5);
  if (error instanceof EngineError && error.code === 'engine_closed') throw serviceUnavailable(5, 'the service is shutting down');
  if (isAbortError(error)) throw new ApiError(400, 'invalid_request', 'the request was cancelled');
  throw error;
}
