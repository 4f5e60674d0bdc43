// Known speakers a job carries to its decoration, stored with its request: a reference clip's profile
// itself (the request's own data, kept and removed with the job), and an enrolled voice by its id only,
// looked up when the speakers are attached. A voice deleted meanwhile is not used (deletion is
// immediate, and a job must not keep a copy of it); the others name voices as an inline answer's do.
import type { KnownSpeaker } from '../pipeline/voice-matching.js';
import { type StoredVoiceProfile, storedVoiceProfile, voiceProfileOf } from '../store/voice-profile-json.js';
import type { VoiceProfileStore } from '../store/voice-profile-store.js';

export type StoredKnownSpeaker = { name: string; profile: StoredVoiceProfile } | { voiceId: string };

/** What a request's known speakers are stored as (`voiceId` set: an enrolled voice, stored by id only). */
export function storedKnownSpeakers(known: ReadonlyArray<KnownSpeaker & { voiceId: string | null }>): StoredKnownSpeaker[] {
  return known.map((k) => (k.voiceId !== null ? { voiceId: k.voiceId } : { name: k.name, profile: storedVoiceProfile(k.profile) }));
}

/** The known speakers of a stored job request, its enrolled voices looked up among its tenant's. */
export async function knownSpeakersOfJob(request: Record<string, unknown>, tenant: string, voices: Pick<VoiceProfileStore, 'get'>): Promise<KnownSpeaker[]> {
  const stored = Array.isArray(request.knownSpeakers) ? (request.knownSpeakers as StoredKnownSpeaker[]) : [];
  const known: KnownSpeaker[] = [];
  for (const entry of stored) {
    if ('voiceId' in entry) {
      const voice = await voices.get(tenant, entry.voiceId);
      if (voice) known.push({ name: voice.name, profile: voice.profile });
    } else {
      known.push({ name: entry.name, profile: voiceProfileOf(entry.profile) });
    }
  }
  return known;
}
