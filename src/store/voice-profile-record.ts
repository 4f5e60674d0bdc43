// How an enrolled voice is stored (voice-profile-store.ts): one row per voice, its profile as JSON
// numbers (19 means, 19 x 19 covariances, the frame count), its id `voice_` and 24 base62 characters.
import type { VoiceProfile } from '../engine/speaker-diarizer.js';
import { randomBase62 } from './random-id.js';
import type { EnrolledVoice, VoiceSummary } from './voice-profile-store.js';

export interface VoiceProfileRow {
  id: string;
  tenant: string;
  name: string;
  /** JSON: {frames, mean, covariance}. */
  profile: string;
  created_at_ms: number;
}

export const VOICE_ID = /^voice_[0-9A-Za-z]{24}$/;

export function newVoiceId(): string {
  return `voice_${randomBase62(24)}`;
}

export function serializeProfile(profile: VoiceProfile): string {
  return JSON.stringify({ frames: profile.frames, mean: [...profile.mean], covariance: [...profile.covariance] });
}

export function summaryOf(row: Pick<VoiceProfileRow, 'id' | 'name' | 'created_at_ms'>): VoiceSummary {
  return { id: row.id, name: row.name, createdAt: new Date(Number(row.created_at_ms)).toISOString() };
}

export function enrolledVoiceOf(row: VoiceProfileRow): EnrolledVoice {
  const stored = JSON.parse(row.profile) as { frames: number; mean: number[]; covariance: number[] };
  return { ...summaryOf(row), profile: { frames: stored.frames, mean: Float64Array.from(stored.mean), covariance: Float64Array.from(stored.covariance) } };
}
