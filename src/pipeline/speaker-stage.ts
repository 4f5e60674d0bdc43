// The speaker stage's engine call, as a plain function (like Transcribe and DetectSpeech) so that the
// attachment rules can be driven by recorded diarizations in tests.
import type { SpeakerDiarization } from '../engine/speaker-diarizer.js';
import type { SpeechRegion } from './speech-regions.js';

export type Diarize = (pcm: Float32Array, regions: SpeechRegion[], signal?: AbortSignal) => Promise<SpeakerDiarization>;
