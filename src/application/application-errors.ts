// Why a use case refuses a request, in the application's terms: what went wrong, never how to answer
// it. The API gives each kind its answer (src/api/error-mapping.ts, one table over every kind), most
// with the message written here: a fixed text that never echoes request content.
import { KindedError } from '../domain/kinded-error.js';

/** Every kind, once; the API's table is typed over this union, so a new kind cannot go unmapped. */
export type ApplicationErrorKind =
  | 'audio_too_long'
  | 'audio_too_short'
  | 'inline_only_option'
  | 'unusable_known_speaker'
  | 'voice_not_found'
  | 'too_many_voices'
  | 'engines_at_capacity'
  | 'transcription_cancelled'
  | 'idempotency_conflict'
  | 'idempotency_in_progress'
  | 'key_revoked'
  | 'credential_refused'
  | 'job_not_found'
  | 'upload_not_complete'
  | 'result_not_available';

export abstract class ApplicationError extends KindedError<ApplicationErrorKind> {}

/** The audio runs longer than the service transcribes at all. */
export class AudioLongerThanAllowed extends ApplicationError {
  readonly kind = 'audio_too_long';

  constructor(readonly maxSeconds: number) {
    super(`the audio is longer than ${maxSeconds} seconds`);
  }
}

/** The audio is too short to hold anything worth transcribing. */
export class AudioShorterThanAllowed extends ApplicationError {
  readonly kind = 'audio_too_short';

  constructor(readonly minSeconds: number) {
    super(`the audio is shorter than ${minSeconds} second`);
  }
}

/** An option only an inline answer can give (a stream, log probabilities) was asked of audio that becomes a job. */
export class InlineOnlyOption extends ApplicationError {
  readonly kind = 'inline_only_option';

  constructor(
    readonly option: 'stream=true' | 'include[]=logprobs',
    readonly inlineBoundarySeconds: number,
  ) {
    super(`${option} is answered on this connection for audio up to ${inlineBoundarySeconds} seconds; longer audio becomes a job: send it without ${option}`);
  }
}

/**
 * A known speaker's reference clip or an enrolment's audio is not audio this service decodes, or runs
 * past its length; or an enrolled voice named by a request is not the tenant's (the message names the field).
 */
export class UnusableKnownSpeaker extends ApplicationError {
  readonly kind = 'unusable_known_speaker';
}

/** No enrolled voice of that id for the key's tenant (another tenant's voice is answered alike). */
export class VoiceNotFound extends ApplicationError {
  readonly kind = 'voice_not_found';

  constructor() {
    super('no enrolled voice of this tenant has that id');
  }
}

/** The tenant holds the most enrolled voices already (the message says how many). */
export class TooManyVoices extends ApplicationError {
  readonly kind = 'too_many_voices';
}

/** Every engine's queue is full: the request was fine and may be retried unchanged. */
export class EnginesAtCapacity extends ApplicationError {
  readonly kind = 'engines_at_capacity';

  constructor() {
    super('the engines are at capacity');
  }
}

/** The client went away while its audio was transcribed. */
export class TranscriptionCancelled extends ApplicationError {
  readonly kind = 'transcription_cancelled';

  constructor(options?: ErrorOptions) {
    super('the request was cancelled', options);
  }
}

/** The Idempotency-Key was used before with other content. */
export class IdempotencyConflict extends ApplicationError {
  readonly kind = 'idempotency_conflict';

  constructor() {
    super('this Idempotency-Key was used with different content');
  }
}

/** Another request with the same Idempotency-Key has not finished yet. */
export class IdempotencyInProgress extends ApplicationError {
  readonly kind = 'idempotency_in_progress';

  constructor() {
    super('a request with this Idempotency-Key is in progress');
  }
}

/** The request's key was revoked after the request was authenticated (an upload or a DNS lookup took time). */
export class KeyRevoked extends ApplicationError {
  readonly kind = 'key_revoked';

  constructor() {
    super('the key was revoked');
  }
}

/** A realtime start's key or client secret is unknown, used, expired or revoked. */
export class CredentialRefused extends ApplicationError {
  readonly kind = 'credential_refused';

  constructor() {
    super('a valid API key, or an unused and unexpired client secret of one, is required in the start message');
  }
}

/** No job with this id belongs to the key (or its record is gone): other keys' jobs are not confirmed to exist. */
export class JobNotFound extends ApplicationError {
  readonly kind = 'job_not_found';

  constructor() {
    super('no job with this id exists for this key');
  }
}

const UPLOAD_NOT_COMPLETE_MESSAGES = {
  mismatch: 'the uploaded file does not have the declared content_length_bytes and content_type; it was removed: upload the right file with the same form',
  slot_closed: 'the upload slot of this job is closed (deadline passed or key revoked); create a new job',
  not_uploaded: 'no complete upload is stored for this job; POST the file to upload.url first',
} as const;

/** A job was to be completed without the file it declared: wrong, never sent, or too late. */
export class UploadNotComplete extends ApplicationError {
  readonly kind = 'upload_not_complete';

  constructor(readonly reason: keyof typeof UPLOAD_NOT_COMPLETE_MESSAGES) {
    super(UPLOAD_NOT_COMPLETE_MESSAGES[reason]);
  }
}

const RESULT_NOT_AVAILABLE_MESSAGES = {
  not_final: 'this job has no final result yet; poll the job',
  expired: "this job's result has expired",
  no_provisional: 'no provisional result is available; poll the job',
  no_redacted_audio: 'this job has no redacted audio: redact_audio was not asked for, or the copy could not be made',
  no_unredacted_result: 'this job has no unredacted result: redact_output=redacted_and_unredacted was not asked for',
} as const;

/**
 * The result asked for cannot be read: the job has not finished, its result expired, no provisional
 * one is published, or it has no redacted audio.
 */
export class ResultNotAvailable extends ApplicationError {
  readonly kind = 'result_not_available';

  constructor(readonly reason: keyof typeof RESULT_NOT_AVAILABLE_MESSAGES) {
    super(RESULT_NOT_AVAILABLE_MESSAGES[reason]);
  }
}
