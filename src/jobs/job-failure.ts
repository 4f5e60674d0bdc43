// Why a job failed, as the contract's job failure codes with fixed messages. Nothing from a decoder,
// an engine or a file name ever reaches a message: the causes go to the server log only. Failures are
// stored codes, not HTTP statuses: the job view shows them as they are, so nothing here maps to a status.
import { AudioSourceUnavailableError, isAudioError } from '../audio/index.js';
import type { JobFailureCode } from '../domain/job-statuses.js';
import { UnsupportedDetectedLanguage } from '../pipeline/pipeline-errors.js';

export class JobFailure extends Error {
  constructor(
    readonly code: JobFailureCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'JobFailure';
  }
}

export const JOB_FAILURE_MESSAGES = {
  tooLong: 'the audio is longer than max_audio_seconds',
  undecodable: 'the audio could not be decoded',
  tooShort: 'the audio is shorter than 1 second',
  unsupportedLanguage: 'the detected language is not supported',
  uploadExpired: 'the upload was not completed before its deadline',
  internal: 'the job could not be processed; give the job id to support',
  audioMissing: "the job's audio is no longer available",
} as const;

/** A failure of decoding or transcribing that is the audio's fault, as a JobFailure; else null. */
export function failureOfAudio(error: unknown): JobFailure | null {
  if (error instanceof JobFailure) return error;
  // The bucket no longer has the object: nothing to retry. Forbidden or unreachable storage is the
  // server's trouble, not the audio's: no failure here (the runner gives the job back and retries).
  if (error instanceof AudioSourceUnavailableError) {
    return error.reason === 'not_found' ? new JobFailure('internal_error', JOB_FAILURE_MESSAGES.audioMissing, { cause: error }) : null;
  }
  if (isAudioError(error)) {
    if (error.code === 'decode_aborted') return null;
    if (error.code === 'audio_too_long') return new JobFailure('audio_too_long', JOB_FAILURE_MESSAGES.tooLong, { cause: error });
    // A decoder that runs out of time on a file is stuck in it: the file, not the server, is the problem.
    return new JobFailure('audio_undecodable', JOB_FAILURE_MESSAGES.undecodable, { cause: error });
  }
  // The recording, not the request, is what cannot be served: the contract files it under undecodable audio.
  if (error instanceof UnsupportedDetectedLanguage) {
    return new JobFailure('audio_undecodable', JOB_FAILURE_MESSAGES.unsupportedLanguage, { cause: error });
  }
  return null;
}
