// What the transcription use case needs from the connection its request came on, at the moments it
// needs it: the upload, read into a file the use case names; a word once the request is admitted;
// the client hanging up; a stream for the answer; the answer a new job gets, stored for an
// Idempotency-Key's retries; and where it notes what the request's audio came to in billing (the
// request's audit line says it). src/api implements it over HTTP; the use case never sees how.
import type { Profile, ResponseFormat } from '../contract/request-fields.js';
import type { ResponseContext } from '../contract/response-body.js';
import type { TranscriptionOutcome } from '../pipeline/run-transcription.js';
import type { TextDelta } from '../pipeline/text-deltas.js';
import type { StoredResponse } from '../store/idempotency-store.js';
import type { JobRecord } from '../store/job-store.js';
import type { RequestUsage } from './request-usage.js';

/** A received upload: the file (at the path the use case gave), its SHA-256 and the form's text fields. */
export interface UploadedAudio {
  path: string;
  sha256: string;
  fields: Record<string, string>;
}

/** An answer told as it is decoded. Until it opens (its first event), a failure is an ordinary answer. */
export interface TranscriptStream {
  onTextDelta: TextDelta;
  /** The outcome's remaining events; the stream ends. */
  finish(outcome: TranscriptionOutcome, format: ResponseFormat, context: ResponseContext): void;
  readonly opened: boolean;
  /** The failure as the stream's last event (opening it if it has not opened); the stream ends. */
  fail(error: unknown): void;
}

export interface TranscriptionConnection {
  /** Reads the upload into `path`; a refused or cut-off upload leaves no file there. */
  receiveUpload(path: string): Promise<UploadedAudio>;
  /** The request's fields are read and its webhook admitted: what they announce (a deprecated profile) applies from here on. */
  admitted(profile: Profile): void;
  /** Aborts `abort` if the client hangs up before the answer is out, until the returned function is called. */
  watchHangUp(abort: AbortController): () => void;
  /** A stream for the answer; a client leaving it aborts `abort`. */
  openStream(abort: AbortController): TranscriptStream;
  /** The answer to a job accepted now, as it will be given again to a retry with the same Idempotency-Key. */
  jobAccepted(job: JobRecord): StoredResponse;
  /** The request's audio length and billing outcome, noted by the use case as they are known; ended with it. */
  readonly usage: RequestUsage;
}
