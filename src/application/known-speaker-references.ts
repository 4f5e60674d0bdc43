// Known speakers of a direct upload: each reference clip (a data URL's bytes, src/contract/
// known-speaker-fields.ts) decoded by the same path as an upload's audio (sniffed, then ffmpeg or the
// in-process WAV reader), and made into a voice profile by src/pipeline/reference-clip.ts; each
// enrolled voice named by id looked up among the tenant's (an unknown id, or another tenant's, is 422
// alike) and its use written to the audit trail. A clip lives in a spool file only while it is decoded;
// nothing of it is kept or logged.
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { decodeAudio, isAudioError, sniffFile } from '../audio/index.js';
import type { KnownSpeakerReference } from '../contract/known-speaker-fields.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import { type ClipRule, REFERENCE_MAX_SECONDS, REFERENCE_MIN_SECONDS, type ReferenceClipStages, referenceProfile } from '../pipeline/reference-clip.js';
import type { KnownSpeaker } from '../pipeline/voice-matching.js';
import type { BlobStore } from '../store/blob-store.js';
import type { VoiceProfileStore } from '../store/voice-profile-store.js';
import { UnusableKnownSpeaker } from './application-errors.js';
import { auditVoice, VOICE_AUDIT_EVENTS, type VoiceAuditLog } from './voice-audit.js';

export interface KnownSpeakerDeps {
  blobs: Pick<BlobStore, 'createUploadPath' | 'createUploadStream'>;
  decodeTimeoutMs: number;
  stages: ReferenceClipStages;
  voices: Pick<VoiceProfileStore, 'get'>;
}

/** What a request names: clips with names, and ids of the tenant's enrolled voices. */
export interface KnownSpeakerRequest {
  key: ApiKeyRecord;
  requestId: string;
  references: readonly KnownSpeakerReference[];
  enrolledVoiceIds: readonly string[];
  log: VoiceAuditLog;
}

/** Decoding may run this far past the limit, so that the length check below says what is wrong (codec padding is a few ms). */
const DECODE_MARGIN_SECONDS = 1;

/** A known speaker of the request; `voiceId` when it is an enrolled voice (a job stores only that). */
export interface RequestKnownSpeaker extends KnownSpeaker {
  voiceId: string | null;
}

export async function knownSpeakersOf(request: KnownSpeakerRequest, deps: KnownSpeakerDeps, signal?: AbortSignal): Promise<RequestKnownSpeaker[]> {
  const known: RequestKnownSpeaker[] = await enrolledVoicesOf(request, deps.voices);
  for (const [i, reference] of request.references.entries()) {
    const field = `known_speaker_references[${i}]`;
    const rule = { field, minSeconds: REFERENCE_MIN_SECONDS, maxSeconds: REFERENCE_MAX_SECONDS };
    const pcm = await decodeClip(deps.blobs, { bytes: reference.clip }, rule, deps, signal);
    known.push({ name: reference.name, profile: await referenceProfile(pcm, SAMPLE_RATE, rule, deps.stages, signal), voiceId: null });
  }
  // The request's order: clips first, as OpenAI's fields come, then enrolled voices.
  return [...known.slice(request.enrolledVoiceIds.length), ...known.slice(0, request.enrolledVoiceIds.length)];
}

/**
 * The enrolled voices a request names, each the key's tenant's (an unknown id and another tenant's are
 * refused alike), their names unique with the request's clips; each use is an audit line.
 */
export async function enrolledVoicesOf(
  request: Pick<KnownSpeakerRequest, 'key' | 'requestId' | 'enrolledVoiceIds' | 'log'> & { references?: readonly KnownSpeakerReference[] },
  voices: Pick<VoiceProfileStore, 'get'>,
): Promise<RequestKnownSpeaker[]> {
  const { key } = request;
  const known: RequestKnownSpeaker[] = [];
  for (const [i, id] of request.enrolledVoiceIds.entries()) {
    const voice = await voices.get(key.tenant, id);
    if (!voice) throw new UnusableKnownSpeaker(`known_speakers[${i}] is not a voice enrolled for this key's tenant`);
    if ((request.references ?? []).some((r) => r.name === voice.name) || known.some((k) => k.name === voice.name)) {
      throw new UnusableKnownSpeaker(`known_speakers[${i}] has the name of another known speaker of this request`);
    }
    known.push({ name: voice.name, profile: voice.profile, voiceId: voice.id });
  }
  // Audited once every id is known to be the tenant's: a refused request used none.
  for (const id of request.enrolledVoiceIds)
    auditVoice(request.log, VOICE_AUDIT_EVENTS.used, { keyId: key.id, tenantId: key.tenant, voiceId: id, requestId: request.requestId });
  return known;
}

/**
 * A clip decoded by the upload's path (sniffed, then ffmpeg or the in-process WAV reader), from `source`:
 * bytes written to a spool file removed after, or a file already received. Refusals name the rule's field.
 */
export async function decodeClip(
  blobs: KnownSpeakerDeps['blobs'],
  source: { bytes: Buffer } | { path: string },
  rule: ClipRule,
  deps: Pick<KnownSpeakerDeps, 'decodeTimeoutMs'>,
  signal?: AbortSignal,
): Promise<Float32Array> {
  const { field } = rule;
  const spooled = 'bytes' in source ? blobs.createUploadPath('reference') : null;
  const path = spooled ?? (source as { path: string }).path;
  try {
    if (spooled && 'bytes' in source) await pipeline(Readable.from([source.bytes]), blobs.createUploadStream(spooled));
    const container = await sniffFile(path);
    if (!container) throw new UnusableKnownSpeaker(`${field} is not audio in a supported format (WAV, MP3, M4A/MP4, WebM, OGG, FLAC or AAC)`);
    return await decodeAudio(path, { maxSeconds: rule.maxSeconds + DECODE_MARGIN_SECONDS, timeoutMs: deps.decodeTimeoutMs, container, signal });
  } catch (error) {
    if (isAudioError(error) && error.code === 'audio_too_long') {
      throw new UnusableKnownSpeaker(`${field} must be ${rule.minSeconds} to ${rule.maxSeconds} seconds of audio`);
    }
    if (isAudioError(error) && error.code === 'undecodable_audio') throw new UnusableKnownSpeaker(`${field} could not be decoded as audio`);
    throw error;
  } finally {
    if (spooled) await rm(spooled, { force: true });
  }
}
