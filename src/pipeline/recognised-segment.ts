// The shapes the recognise stage's helpers share with it: a decoded segment tagged with its run's
// language, and the engine call that decodes. Kept apart from recognise-stage.ts so the stages it
// calls (prompting, term corrections, patterns) can name them without importing it back.
import type { LanguageFamily } from '../domain/language-families.js';
import type { TranscribeOptions } from '../engine/engine.js';
import type { Transcript, TranscriptSegment } from '../engine/transcript.js';

export interface RecognisedSegment extends TranscriptSegment {
  /** The language of the run the segment was decoded in. */
  language: LanguageFamily;
}

/** `onSegments`: the call's segments as they are decoded (the engine's CallOptions.onSegments). */
export type Transcribe = (
  pcm: Float32Array,
  options: TranscribeOptions,
  signal?: AbortSignal,
  onSegments?: (segments: TranscriptSegment[]) => void,
) => Promise<Transcript>;
