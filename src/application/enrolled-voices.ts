// Enrolled voices (POST/GET/DELETE /v1/voices): a tenant stores a named voice profile once, from 5 to
// 30 s of the person speaking alone, and names it in requests by id (`known_speakers`). Only speaker
// statistics are kept, never the audio (the upload is removed by the route); every step is an audit
// line (voice-audit.ts); another tenant's voice is answered exactly as an unknown one.

import { knownSpeakerName } from '../contract/known-speaker-fields.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import { unknownFieldMessage } from '../domain/field-names.js';
import { FLAGSHIP_MODEL } from '../domain/model-ids.js';
import type { PipelineEngines } from '../pipeline/pipeline-engine.js';
import { InvalidRequestField } from '../pipeline/pipeline-errors.js';
import { ENROLMENT_MAX_SECONDS, ENROLMENT_MIN_SECONDS, referenceProfile } from '../pipeline/reference-clip.js';
import type { BlobStore } from '../store/blob-store.js';
import { VoiceLimitReached, type VoiceProfileStore, type VoiceSummary } from '../store/voice-profile-store.js';
import { TooManyVoices, VoiceNotFound } from './application-errors.js';
import { decodeClip } from './known-speaker-references.js';
import { auditVoice, VOICE_AUDIT_EVENTS, type VoiceAuditLog } from './voice-audit.js';

export interface EnrolledVoiceDeps {
  voices: VoiceProfileStore;
  stages: PipelineEngines;
  blobs: Pick<BlobStore, 'createUploadPath' | 'createUploadStream'>;
  decodeTimeoutMs: number;
  clock: () => number;
}

export interface VoiceRequest {
  key: ApiKeyRecord;
  requestId: string;
  log: VoiceAuditLog;
}

/** The enrolment form's fields besides the file. */
const ENROLMENT_FIELDS = ['name'];

export async function enrolVoice(
  request: VoiceRequest & { fields: Record<string, string>; audioPath: string },
  deps: EnrolledVoiceDeps,
): Promise<VoiceSummary> {
  const { key } = request;
  const unknown = Object.keys(request.fields).find((name) => !ENROLMENT_FIELDS.includes(name));
  if (unknown !== undefined) throw new InvalidRequestField(unknownFieldMessage(unknown, ['file', ...ENROLMENT_FIELDS]));
  const name = knownSpeakerName(request.fields.name ?? '', 'name');
  const rule = { field: 'file', minSeconds: ENROLMENT_MIN_SECONDS, maxSeconds: ENROLMENT_MAX_SECONDS };
  const pcm = await decodeClip(deps.blobs, { path: request.audioPath }, rule, deps);
  const stages = deps.stages[FLAGSHIP_MODEL]({ workClass: 'interactive', tenant: key.tenant, request: request.requestId });
  const profile = await referenceProfile(pcm, SAMPLE_RATE, rule, stages);
  let voice: VoiceSummary;
  try {
    voice = await deps.voices.create(key.tenant, name, profile, deps.clock());
  } catch (error) {
    if (error instanceof VoiceLimitReached) throw new TooManyVoices(error.message);
    throw error;
  }
  auditVoice(request.log, VOICE_AUDIT_EVENTS.enrolled, { keyId: key.id, tenantId: key.tenant, voiceId: voice.id });
  return voice;
}

export async function listVoices(request: VoiceRequest, deps: Pick<EnrolledVoiceDeps, 'voices'>): Promise<VoiceSummary[]> {
  const voices = await deps.voices.list(request.key.tenant);
  auditVoice(request.log, VOICE_AUDIT_EVENTS.listed, { keyId: request.key.id, tenantId: request.key.tenant, count: voices.length });
  return voices;
}

/** The tenant's voice (never its statistics); VoiceNotFound for an unknown id or another tenant's. */
export async function readVoice(request: VoiceRequest & { voiceId: string }, deps: Pick<EnrolledVoiceDeps, 'voices'>): Promise<VoiceSummary> {
  const voice = await deps.voices.get(request.key.tenant, request.voiceId);
  if (!voice) throw new VoiceNotFound();
  auditVoice(request.log, VOICE_AUDIT_EVENTS.read, { keyId: request.key.id, tenantId: request.key.tenant, voiceId: voice.id });
  return { id: voice.id, name: voice.name, createdAt: voice.createdAt };
}

export async function deleteVoice(request: VoiceRequest & { voiceId: string }, deps: Pick<EnrolledVoiceDeps, 'voices'>): Promise<void> {
  if (!(await deps.voices.remove(request.key.tenant, request.voiceId))) throw new VoiceNotFound();
  auditVoice(request.log, VOICE_AUDIT_EVENTS.deleted, { keyId: request.key.id, tenantId: request.key.tenant, voiceId: request.voiceId });
}
