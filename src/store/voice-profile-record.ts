// How an enrolled voice is stored (voice-profile-store.ts): one row per voice, its profile as JSON
// numbers (19 means, 19 x 19 covariances, the frame count, log-F0 statistics: voice-profile-json.ts), its id `voice_` and 24 base62 characters.
import type { VoiceProfile } from '../engine/speaker-diarizer.js';
import { randomBase62 } from './random-id.js';
import { type StoredVoiceProfile, storedVoiceProfile, voiceProfileOf } from './voice-profile-json.js';
import type { EnrolledVoice, VoiceSummary } from './voice-profile-store.js';

export interface VoiceProfileRow {
  id: string;
  tenant: string;
  name: string;
  /** JSON: StoredVoiceProfile. */
  profile: string;
  created_at_ms: number;
}

export const VOICE_ID = /^voice_[0-9A-Za-z]{24}$/;

export function newVoiceId(): string {
  return `voice_${randomBase62(24)}`;
}

export function serializeProfile(profile: VoiceProfile): string {
  return JSON.stringify(storedVoiceProfile(profile));
}

export function summaryOf(row: Pick<VoiceProfileRow, 'id' | 'name' | 'created_at_ms'>): VoiceSummary {
  return { id: row.id, name: row.name, createdAt: new Date(Number(row.created_at_ms)).toISOString() };
}

export function enrolledVoiceOf(row: VoiceProfileRow): EnrolledVoice {
  return { ...summaryOf(row), profile: voiceProfileOf(JSON.parse(row.profile) as StoredVoiceProfile) };
}
