// A direct upload to the transcription (or translation) route, from billing's first word to the
// answer: refused before the upload is read when the account is blocked, the upload received into
// a file of its own, its fields read and its webhook admitted, its bytes sniffed and its length
// measured, then either transcribed inline (audio within the boundary) or accepted as a durable job.
// The uploaded file is gone when this returns, whatever the outcome (moved into job storage for a job).
import { rm } from 'node:fs/promises';

import { type AudioContainer, decodeAudio, isAudioError, probeAudio, sniffFile, UnsupportedContainerError } from '../audio/index.js';
import { BillingBlockedError } from '../billing/billing-errors.js';
import type { ServiceConfig } from '../config/service-config.js';
import type { TranscriptionRequest } from '../contract/transcription-request.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import type { JobAuditLog } from '../jobs/job-audit.js';
import { storedKnownSpeakers } from '../jobs/job-known-speakers.js';
import { requireMultichannelAudio } from '../pipeline/channel-tracks.js';
import { acceptDirectJob } from './accept-direct-job.js';
import { answerInline, inlineEventKey, inlineUsageRoute } from './answer-inline.js';
import { AudioLongerThanAllowed, AudioShorterThanAllowed, InlineOnlyOption, KeyRevoked } from './application-errors.js';
import { knownSpeakersOf } from './known-speaker-references.js';
import { meteringNoted } from './request-usage.js';
import type { TranscribeUploadDeps } from './transcribe-upload-deps.js';
import type { TranscriptionAnswer } from './transcription-answer.js';
import type { TranscriptionConnection } from './transcription-connection.js';

export interface UploadTranscription {
  key: ApiKeyRecord;
  requestId: string;
  idempotencyKey: string | null;
  /** Reads the route's form fields (a transcription's or a translation's) into the request the pipeline runs. */
  parseFields(fields: Record<string, string>, key: ApiKeyRecord): TranscriptionRequest;
  /** Where the job audit lines of the request go. */
  log: JobAuditLog;
}

/** How long probing audio longer than the boundary may take before it is refused as a decode timeout. */
const PROBE_TIMEOUT_MS = 60_000;

export async function transcribeUpload(
  request: UploadTranscription,
  connection: TranscriptionConnection,
  deps: TranscribeUploadDeps,
): Promise<TranscriptionAnswer> {
  // What the request's audio came to in billing, noted on the connection's usage as it is decided
  // (request-usage.ts): metered as the ledger records it, refused, or a job.
  const { usage } = connection;
  try {
    const answer = await transcribe(request, connection, { ...deps, billing: meteringNoted(deps.billing, usage) });
    if (answer.kind === 'stored') usage.becameJob();
    return answer;
  } catch (error) {
    if (error instanceof BillingBlockedError) usage.refused(error.reason);
    throw error;
  } finally {
    usage.end();
  }
}

async function transcribe(request: UploadTranscription, connection: TranscriptionConnection, deps: TranscribeUploadDeps): Promise<TranscriptionAnswer> {
  const { config } = deps;
  const { key, idempotencyKey } = request;
  // Before the upload is read: a blocked account does not send 100 MB to be refused. A retry of a
  // job created earlier is let through to its replay (acceptDirectJob decides billing after it).
  const replayable = idempotencyKey !== null && (await deps.idempotency.hasResponse(key.tenant, idempotencyKey));
  if (!replayable) await deps.billing.requireAllowance(key, 'inline');
  const tempPath = deps.blobs.createUploadPath('direct');
  try {
    const upload = await connection.receiveUpload(tempPath);
    const transcription = request.parseFields(upload.fields, key);
    const webhookSecretVersion = transcription.webhookUrl ? await deps.webhooks.admit(key.id, transcription.webhookUrl) : null;
    connection.admitted(transcription.profile);

    // The bytes decide the type, not the name or the declared content type.
    const container = await sniffFile(upload.path);
    if (!container) throw new UnsupportedContainerError();
    // A client that hangs up stops its own decoding and transcription.
    const abort = new AbortController();
    const stopWatching = connection.watchHangUp(abort);
    try {
      // Audio that may be answered inline is decoded straight away, capped at the boundary: its length
      // is then exact and no separate probe runs (a probe costs a process start, ~10 % of a short
      // request). Only audio longer than the boundary is probed, to route it to a job or refuse it.
      // multichannel: the channels are counted first (a probe), and each is decoded on its own.
      const channelCount = transcription.multichannel ? await multichannelCount(upload.path, container, abort.signal) : 1;
      const decoded = transcription.webhookUrl ? null : await decodeChannelsUpToBoundary(upload.path, container, config, abort.signal, channelCount);
      const pcm = decoded?.[0] ?? null;
      if (!pcm && (transcription.stream || transcription.logprobs)) {
        throw new InlineOnlyOption(transcription.stream ? 'stream=true' : 'include[]=logprobs', config.inlineBoundarySeconds);
      }
      const durationSeconds = pcm ? pcm.length / SAMPLE_RATE : (await probeAudio(upload.path, { timeoutMs: PROBE_TIMEOUT_MS, container })).durationSeconds;
      connection.usage.measured(durationSeconds);
      if (durationSeconds > config.maxAudioSeconds) throw new AudioLongerThanAllowed(config.maxAudioSeconds);
      if (durationSeconds < config.minAudioSeconds) throw new AudioShorterThanAllowed(config.minAudioSeconds);
      // Known speakers, inline or for a job: bad reference clips and ids are refused before any audio is reserved.
      const stages = deps.stages[transcription.model]({ workClass: 'interactive', tenant: key.tenant, request: request.requestId });
      const knownDeps = { blobs: deps.blobs, decodeTimeoutMs: config.decodeTimeoutMs, stages, voices: deps.voices };
      const named = { references: transcription.knownSpeakerReferences, enrolledVoiceIds: transcription.enrolledVoiceIds };
      const knownSpeakers = await knownSpeakersOf({ key, requestId: request.requestId, ...named, log: request.log }, knownDeps, abort.signal);
      if (pcm) {
        // Now that its length is known: work that would cross the allowance (or the cap, or the credit),
        // counting the work other requests were admitted for, is refused before it starts; admitted, its
        // audio is reserved until metering converts the reservation, or it is released here.
        const eventKey = inlineEventKey(request.requestId);
        await deps.billing.reserve(key, inlineUsageRoute(transcription), Math.round(durationSeconds * 1000), eventKey);
        // A key revoked or paused while its audio is transcribed stops it (answered 401 or 402, nothing metered).
        const unwatch = deps.watch.watch(key.id, (cutOff) =>
          abort.abort(cutOff === 'revoked' ? new KeyRevoked() : new BillingBlockedError('paused', 'batch', null)),
        );
        try {
          // Decoded audio lives in memory from here on: the uploaded file goes now, not after the answer.
          await rm(tempPath, { force: true });
          // Idempotency-Key is accepted and ignored on inline answers (contract rule 6).
          const channels = transcription.multichannel ? decoded : null;
          return await answerInline({ key, requestId: request.requestId, transcription, pcm, channels, knownSpeakers, abort }, connection, deps);
        } finally {
          unwatch();
          // Metered, the reservation is gone already; failed, its audio is not held any longer. A store
          // that cannot delete it leaves it to die with this instance.
          await deps.billing.release(eventKey).catch(() => undefined);
        }
      }
      const direct = { key, idempotencyKey, transcription, upload, durationSeconds, webhookSecretVersion, knownSpeakers: storedKnownSpeakers(knownSpeakers) };
      return await acceptDirectJob({ ...direct, log: request.log }, connection, deps);
    } finally {
      stopWatching();
    }
  } finally {
    await rm(tempPath, { force: true });
  }
}

/** The channels of audio asked to be transcribed apart, refused unless it is such a recording. */
async function multichannelCount(path: string, container: AudioContainer, signal: AbortSignal): Promise<number> {
  const { channels } = await probeAudio(path, { timeoutMs: PROBE_TIMEOUT_MS, container, signal });
  requireMultichannelAudio(channels);
  return channels;
}

/**
 * The decoded audio when it fits within the inline boundary (the mix, or each of `channels` apart when
 * there are several); null when it is longer.
 */
async function decodeChannelsUpToBoundary(
  path: string,
  container: AudioContainer,
  config: ServiceConfig,
  signal: AbortSignal,
  channels: number,
): Promise<Float32Array[] | null> {
  const options = { maxSeconds: config.inlineBoundarySeconds, timeoutMs: config.decodeTimeoutMs, container, signal };
  try {
    if (channels === 1) return [await decodeAudio(path, options)];
    const decoded: Float32Array[] = [];
    for (let channel = 0; channel < channels; channel++) decoded.push(await decodeAudio(path, { ...options, channel }));
    return decoded;
  } catch (error) {
    if (isAudioError(error) && error.code === 'audio_too_long') return null;
    throw error;
  }
}
