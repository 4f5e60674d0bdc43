// The speaker stage's engine calls, as plain functions (like Transcribe and DetectSpeech) so that the
// attachment rules and a long job's decoration can be driven by recorded diarizations in tests.
import type { SpeakerDiarization, SpeakerFeatures } from '../engine/speaker-diarizer.js';
import type { SpeechRegion } from './speech-regions.js';

/** Who spoke when, over a stretch of PCM or a recording's features joined from its windows. */
/** `minVoices`: the voices the request says speak at least (min_speakers), split to when they are found. */
export type Diarize = (
  input: Float32Array | SpeakerFeatures,
  regions: SpeechRegion[],
  signal?: AbortSignal,
  hints?: { minVoices?: number },
) => Promise<SpeakerDiarization>;

/** The diarizer's first stage over one window of a recording (regions: seconds from the window's start). */
export type ExtractSpeakerFeatures = (pcm: Float32Array, regions: SpeechRegion[], signal?: AbortSignal) => Promise<SpeakerFeatures>;
