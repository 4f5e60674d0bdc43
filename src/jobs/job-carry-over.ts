// What a job carries from one chunk to the next, stored in its row's `progress` (JSON): how to decode
// the file, what was decided about its language, the timings so far and, for a diarized job, its
// speech regions (the decoration diarizes them over the whole recording at once).
import type { AudioContainer } from '../audio/index.js';
import type { verboseBody } from '../contract/response-body.js';
import type { PatternTally } from '../pipeline/pattern-stage.js';
import type { VocabularyTally } from '../pipeline/prompted-recognition.js';
import { INITIAL_LANGUAGE_STATE, type JobLanguageState } from './job-language.js';

/** What a job carries from one chunk to the next (stored in the row's `progress`). */
export interface CarryOver extends Record<string, unknown> {
  container: AudioContainer;
  durationSeconds: number;
  language: JobLanguageState;
  speakerTiming: ReturnType<typeof verboseBody>['speaker_timing'] | null;
  wordTiming: boolean;
  asrMs: number;
  /** Wall time of the chunks so far (absent in rows written before it was kept). */
  processingMs?: number;
  /** A diarized job's speech regions so far, [start, end] seconds into the recording. */
  speech?: Array<[number, number]>;
  /** A diarized multichannel job's speech regions by channel so far (each channel is diarized alone). */
  channelSpeech?: Array<Array<[number, number]>>;
  /** Where the text ended (seconds), once the last chunk is done. */
  endSeconds?: number;
  /** What prompting did over the chunks so far (vocabulary or prompt), corrections in the recording's time. */
  vocabulary?: VocabularyTally;
  /** What the request's patterns matched over the chunks so far, in the recording's time. */
  patterns?: PatternTally;
}

/**
 * The carried state of a row; null before the first chunk. A row written by the previous version
 * (language decided as `{tag, family}`) carries on with that language.
 */
export function carryOf(progress: Record<string, unknown> | null): CarryOver | null {
  if (!progress) return null;
  const language = progress.language as JobLanguageState | { tag: string } | null;
  if (language && 'choice' in language) return progress as CarryOver;
  const legacy: JobLanguageState = language
    ? {
        ...INITIAL_LANGUAGE_STATE,
        choice: { mode: 'explicit', tag: language.tag },
        source: (progress.languageSource as JobLanguageState['source']) ?? null,
        detection: (progress.detection as JobLanguageState['detection']) ?? null,
        language: language.tag,
      }
    : INITIAL_LANGUAGE_STATE;
  return { ...(progress as CarryOver), language: legacy };
}
