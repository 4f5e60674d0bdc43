// Enrolled voices (issue 31): a tenant's named voice profiles, so a clinician enrolled once is named in
// every consultation (`known_speakers` on a request). A profile is biometric data: speaker statistics
// only (src/engine/speaker-diarizer.ts VoiceProfile: loud-frame cepstral mean and covariance), never the
// audio; per tenant only (another tenant's id is answered as unknown); deleted at once, the row gone.
import type { VoiceProfile } from '../engine/speaker-diarizer.js';

/** What a listing shows of an enrolled voice: never its statistics. */
export interface VoiceSummary {
  id: string;
  name: string;
  createdAt: string;
}

export interface EnrolledVoice extends VoiceSummary {
  profile: VoiceProfile;
}

/** The most voices a tenant may hold: enrolment is for the clinicians of a practice, not a population. */
export const MAX_VOICES_PER_TENANT = 200;

/** A tenant already holds MAX_VOICES_PER_TENANT voices. */
export class VoiceLimitReached extends Error {
  constructor() {
    super(`a tenant holds at most ${MAX_VOICES_PER_TENANT} enrolled voices: delete one first`);
    this.name = 'VoiceLimitReached';
  }
}

export interface VoiceProfileStore {
  /** Stores a voice for `tenant`; VoiceLimitReached when it holds the most already. */
  create(tenant: string, name: string, profile: VoiceProfile, nowMs: number): Promise<VoiceSummary>;
  /** The tenant's voices, oldest first. */
  list(tenant: string): Promise<VoiceSummary[]>;
  /** The voice when it is the tenant's; null for an unknown id and for another tenant's alike. */
  get(tenant: string, id: string): Promise<EnrolledVoice | null>;
  /** Deletes the tenant's voice now; false when it has none of that id. */
  remove(tenant: string, id: string): Promise<boolean>;
}
