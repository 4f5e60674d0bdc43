// The known-speaker part of bench diarization: each recording's diarized voices are named from
// reference clips (test/helpers/voice-references.ts) by src/pipeline/voice-matching.ts, in scenarios
// of two kinds: every voice of the recording enrolled; and its last voice left out while a stranger
// is enrolled in its place, once per stranger: an alike voice of another espeak-ng variant or accent,
// and the left-out voice's own variant at another pitch (pitchTwin: one vocal tract, another register).
// Each reference turn takes the label of the voice that overlaps it most. named_correctly: the share of
// the turns of enrolled voices that carry their own name; false_attribution: the share of all turns
// that carry someone else's name (bar <= 0.01).
import { decodeAudio } from '../src/audio/index.js';
import type { Engine } from '../src/engine/engine.js';
import type { SpeakerDiarization, VoiceProfile } from '../src/engine/speaker-diarizer.js';
import { type KnownSpeaker, MATCH_DISTANCE, matchKnownSpeakers } from '../src/pipeline/voice-matching.js';
import type { SpeakerVoice } from '../test/helpers/audio-fixtures.js';
import type { SpeakerTurn } from '../test/helpers/diarization-error-rate.js';
import { ALIKE_VOICES, type ReferenceChannel, referenceClip, throughChannel } from '../test/helpers/voice-references.js';

/** One diarized recording, its reference turns, and the voice behind each reference speaker. */
export interface NamedRecording {
  turns: SpeakerTurn[];
  voices: Readonly<Record<string, SpeakerVoice>>;
  diarization: SpeakerDiarization;
}

export interface NamingScore {
  maxDistance: number;
  namedCorrectly: number;
  falseAttribution: number;
  scenarios: number;
  turns: number;
}

/** The same espeak-ng variant and rate 15 pitch steps away (down from 50 and above, else up): a stranger with the voice's tract. */
export const pitchTwin = (v: SpeakerVoice): SpeakerVoice => ({ ...v, pitch: (v.pitch ?? 50) >= 50 ? (v.pitch ?? 50) - 15 : (v.pitch ?? 50) + 15 });

const voiceKey = (v: SpeakerVoice) => `${v.voice}-p${v.pitch ?? 50}-s${v.speed ?? 160}`;

/** Profiles of every voice's reference clip, by voiceKey (the clip's one voice). */
export async function referenceProfiles(
  engine: Engine,
  voices: readonly SpeakerVoice[],
  clipSeconds: number,
  channel: ReferenceChannel = 'same',
): Promise<Map<string, VoiceProfile>> {
  const profiles = new Map<string, VoiceProfile>();
  for (const voice of [...voices, ...voices.map(pitchTwin), ...ALIKE_VOICES]) {
    if (profiles.has(voiceKey(voice))) continue;
    const pcm = throughChannel(await decodeAudio(await referenceClip(voice, clipSeconds), { maxSeconds: 10, timeoutMs: 60_000 }), channel);
    const diarization = await engine.diarize(pcm, (await engine.detectSpeech(pcm)).segments);
    profiles.set(voiceKey(voice), diarization.profiles[0]);
  }
  return profiles;
}

export function scoreNaming(recordings: readonly NamedRecording[], references: Map<string, VoiceProfile>, maxDistance = MATCH_DISTANCE): NamingScore {
  let correct = 0;
  let enrolledTurns = 0;
  let wrong = 0;
  let turns = 0;
  let scenarios = 0;
  for (const recording of recordings) {
    const present = [...new Set(recording.turns.map((t) => t.speaker))].map((s) => voiceKey(recording.voices[s]));
    const absent = present[present.length - 1];
    const speakers = [...new Set(recording.turns.map((t) => t.speaker))];
    const twin = voiceKey(pitchTwin(recording.voices[speakers[speakers.length - 1]]));
    const alike = ALIKE_VOICES.map(voiceKey).filter((k) => !present.includes(k) && k.split('-p')[0] !== absent.split('-p')[0]);
    const strangers = present.includes(twin) ? alike : [...alike, twin];
    const enrolments = [present, ...strangers.map((stranger) => [...present.slice(0, -1), stranger])];
    // Each reference turn's voice: the one that overlaps it most.
    const voiceOfTurn = recording.turns.map((t) => overlappingVoice(recording.diarization, t));
    for (const enrolled of enrolments) {
      scenarios++;
      const known: KnownSpeaker[] = enrolled.map((name) => ({ name, profile: references.get(name)! }));
      const matches = matchKnownSpeakers(recording.diarization.profiles, known, maxDistance);
      const nameOf = new Map(matches.filter((m) => m.voice !== null).map((m) => [m.voice!, m.name]));
      recording.turns.forEach((t, i) => {
        const truth = voiceKey(recording.voices[t.speaker]);
        const label = voiceOfTurn[i] === null ? undefined : nameOf.get(voiceOfTurn[i]);
        turns++;
        if (enrolled.includes(truth)) {
          enrolledTurns++;
          if (label === truth) correct++;
        }
        if (label !== undefined && label !== truth) wrong++;
      });
    }
  }
  return { maxDistance, namedCorrectly: correct / Math.max(1, enrolledTurns), falseAttribution: wrong / Math.max(1, turns), scenarios, turns };
}

function overlappingVoice(diarization: SpeakerDiarization, turn: SpeakerTurn): number | null {
  const overlap = new Map<number, number>();
  for (const h of diarization.turns) {
    const o = Math.min(turn.end, h.end) - Math.max(turn.start, h.start);
    if (o > 0) overlap.set(h.speaker, (overlap.get(h.speaker) ?? 0) + o);
  }
  let best: number | null = null;
  for (const [voice, o] of overlap) if (best === null || o > overlap.get(best)!) best = voice;
  return best;
}
