// A voice profile as stored JSON (an enrolled voice's row, a job's known speakers): plain numbers, the
// pitch statistics only where the profile has them (profiles enrolled before pitch was kept have none
// and are compared on their cepstra alone: voice-matching.ts).
import type { VoicePitch, VoiceProfile } from '../engine/speaker-diarizer.js';

export interface StoredVoiceProfile {
  frames: number;
  mean: number[];
  covariance: number[];
  pitch?: VoicePitch;
}

export function storedVoiceProfile(profile: VoiceProfile): StoredVoiceProfile {
  const stored: StoredVoiceProfile = { frames: profile.frames, mean: [...profile.mean], covariance: [...profile.covariance] };
  if (profile.pitch) stored.pitch = { ...profile.pitch };
  return stored;
}

export function voiceProfileOf(stored: StoredVoiceProfile): VoiceProfile {
  const profile: VoiceProfile = { frames: stored.frames, mean: Float64Array.from(stored.mean), covariance: Float64Array.from(stored.covariance) };
  if (stored.pitch) profile.pitch = { ...stored.pitch };
  return profile;
}
