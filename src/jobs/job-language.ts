// The language a `POST /v1/jobs` job is transcribed in when its request omitted `language`: decided on
// the job's first chunk, then carried to the next ones in the job's progress.
//
// Who gets detection: only jobs created through `POST /v1/jobs` whose request omitted `language` and
// whose key has no default language. A key's default language is an operator's explicit choice and is
// used as stored (`language_source` `default`). Direct uploads (`POST /v1/audio/transcriptions`) keep
// their route's documented default, the key's default then English, even when they become jobs.
// The route records that decision at acceptance (`detectOmittedLanguage` in the stored request), so a
// key whose default language changes afterwards does not change how an accepted job is transcribed.
// Rows stored without the flag are judged from the key as it is when the first chunk runs.
import { DECODED_SAMPLE_RATE, decodeAudioWindow, type AudioContainer } from '../audio/index.js';
import type { Engine } from '../engine/engine.js';
import { detectDominantLanguage } from '../pipeline/dominant-language.js';
import type { LanguageTag } from '../pipeline/languages.js';
import type { LanguageDetectionBlock, TranscriptionOutcome } from '../pipeline/run-transcription.js';
import { DETECTION_WINDOW_SECONDS, MAX_DETECTION_WINDOWS } from '../pipeline/speech-window.js';
import type { ApiKeyRecord } from '../store/key-store.js';
import type { StoredJobRequest } from './job-request.js';

/** The language every chunk of a job is transcribed in, and how the final result declares it. */
export interface JobLanguage {
  language: LanguageTag;
  source: TranscriptionOutcome['languageSource'];
  detection: LanguageDetectionBlock | null;
}

const ENGLISH: LanguageTag = { tag: 'en', family: 'en' };
const OPENING_SECONDS = DETECTION_WINDOW_SECONDS * MAX_DETECTION_WINDOWS;

/** Whether the job's language is to be detected (see the rule above). */
export function detectsOmittedLanguage(storedRequest: Record<string, unknown>, request: StoredJobRequest, key: ApiKeyRecord | null): boolean {
  if (typeof storedRequest.detectOmittedLanguage === 'boolean') return storedRequest.detectOmittedLanguage;
  return (
    storedRequest.route === 'presigned' &&
    request.language.mode === 'explicit' &&
    request.language.source === 'default' &&
    key !== null &&
    key.defaultLanguage === null
  );
}

export interface OpeningAudio {
  engine: Engine;
  audioPath: string;
  container: AudioContainer;
  /**
   * The first chunk's samples when they start at the recording's start; `whole` when they are the
   * entire recording. Decoded again only when they are shorter than the four windows detection may need.
   */
  firstChunk: { pcm: Float32Array; whole: boolean } | null;
  decodeTimeoutMs: number;
  signal?: AbortSignal;
}

/**
 * The detected dominant language (`language_source` `detected`). When none of the four opening windows
 * bears speech nothing is detected: the job is transcribed in English, declared `default` as any
 * omitted language that was not detected is.
 */
export async function detectJobLanguage(opening: OpeningAudio): Promise<JobLanguage> {
  const { firstChunk } = opening;
  const needed = OPENING_SECONDS * DECODED_SAMPLE_RATE;
  const pcm =
    firstChunk && (firstChunk.whole || firstChunk.pcm.length >= needed)
      ? firstChunk.pcm
      : await decodeAudioWindow(opening.audioPath, {
          startSeconds: 0,
          seconds: OPENING_SECONDS,
          container: opening.container,
          timeoutMs: opening.decodeTimeoutMs,
          signal: opening.signal,
        });
  const dominant = await detectDominantLanguage(opening.engine, pcm, DECODED_SAMPLE_RATE, opening.signal);
  if (!dominant) return { language: ENGLISH, source: 'default', detection: null };
  return { language: { tag: dominant.family, family: dominant.family }, source: 'detected', detection: dominant.detection };
}
