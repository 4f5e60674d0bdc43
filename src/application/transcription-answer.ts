// What the transcription use case leaves the connection to say once it returns.
import type { ResponseContext } from '../contract/response-body.js';
import type { TranscriptionRequest } from '../contract/transcription-request.js';
import type { TranscriptionOutcome } from '../pipeline/run-transcription.js';
import type { StoredResponse } from '../store/idempotency-store.js';

export type TranscriptionAnswer =
  /** A job accepted now, or earlier under the same Idempotency-Key: its stored answer. */
  | { kind: 'stored'; response: StoredResponse }
  /** The transcript, to be answered whole in the request's response format. */
  | { kind: 'transcript'; outcome: TranscriptionOutcome; transcription: TranscriptionRequest; context: ResponseContext }
  /** Already told on the stream the use case opened (the transcript, or the failure as its last event). */
  | { kind: 'streamed' };
