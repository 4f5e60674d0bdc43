// A known speaker's reference clip (2 to 10 s, OpenAI's rule) or an enrolment's audio (5 to 30 s),
// decoded, made into a voice profile only when it is what it claims to be: one person speaking. Speech is the VAD's (speech-stage.ts): a
// clip of silence, music or noise has too little of it; one voice is the diarizer's count. A profile
// from anything else would be the profile of nobody in particular, and naming by it could put a
// clinician's name on a patient. Refusals name the field and why, never what was in it.
import type { VoiceProfile } from '../engine/speaker-diarizer.js';
import { UnprocessableRequest } from './pipeline-errors.js';
import type { Diarize } from './speaker-stage.js';
import { type DetectSpeech, findSpeech } from './speech-stage.js';
import { MIN_PROFILE_FRAMES } from './voice-matching.js';

/** What a clip must be, and the field it came in (named in refusals). */
export interface ClipRule {
  field: string;
  minSeconds: number;
  maxSeconds: number;
}

export const REFERENCE_MIN_SECONDS = 2;
export const REFERENCE_MAX_SECONDS = 10;
/** An enrolment (POST /v1/voices) is longer: it is made once and names the voice in every recording after. */
export const ENROLMENT_MIN_SECONDS = 5;
export const ENROLMENT_MAX_SECONDS = 30;
/**
 * The share of a clip the VAD must hear as speech, and the least speech in seconds. A reference is
 * someone talking; a clip under half speech is mostly silence, music or noise, and its profile would
 * average them in. The VAD pads its regions, so a sentence with ordinary pauses is well above half.
 */
const MIN_SPEECH_SHARE = 0.5;
const MIN_SPEECH_SECONDS = 1.5;
/** Compressed formats decode a few milliseconds longer than they were cut (codec padding): a 10 s MP3 is 10 s. */
const CODEC_PADDING_SECONDS = 0.1;

export interface ReferenceClipStages {
  detectSpeech: DetectSpeech | null;
  diarize: Diarize;
}

/** The voice profile of a clip, or an UnprocessableRequest naming its field and what is wrong with it. */
export async function referenceProfile(
  pcm: Float32Array,
  sampleRate: number,
  rule: ClipRule,
  stages: ReferenceClipStages,
  signal?: AbortSignal,
): Promise<VoiceProfile> {
  const { field } = rule;
  const seconds = pcm.length / sampleRate;
  if (seconds < rule.minSeconds || seconds > rule.maxSeconds + CODEC_PADDING_SECONDS) {
    throw new UnprocessableRequest(`${field} must be ${rule.minSeconds} to ${rule.maxSeconds} seconds of audio`);
  }
  const regions = await findSpeech(pcm, sampleRate, stages.detectSpeech, signal);
  const speech = regions.reduce((sum, r) => sum + (r.end - r.start), 0);
  if (speech < MIN_SPEECH_SECONDS || speech < MIN_SPEECH_SHARE * seconds) {
    throw new UnprocessableRequest(`${field} holds too little speech (silence, music or noise): send the person speaking`);
  }
  const diarization = await stages.diarize(pcm, regions, signal);
  if (diarization.voices > 1) throw new UnprocessableRequest(`${field} holds more than one voice: send a clip of the named person alone`);
  const profile = diarization.profiles[0];
  if (!profile || profile.frames < MIN_PROFILE_FRAMES) {
    throw new UnprocessableRequest(`${field} holds too little voiced speech to recognise the person: send a longer clip of them speaking`);
  }
  return profile;
}
