// The unredacted transcript a job keeps beside its redacted result when asked for both
// (`redact_output=redacted_and_unredacted`, AWS's RedactionOutput; docs/API.md "Redaction"). Each
// chunk's recognition is shaped twice: once redacted (the result, the provisional result, the
// webhook), once formatted as asked but not redacted (this). The unredacted one is assembled in its
// own blob, never in the provisional result a poll serves, and is released with the result or the
// failure (the row's `unredacted_path`).
import { applyClinicalText } from '../pipeline/clinical-text-stage.js';
import type { TranscriptionOutcome } from '../pipeline/run-transcription.js';
import type { StoredJobRequest } from './job-request.js';

/** Whether the job keeps an unredacted transcript. */
export function keepsUnredacted(request: StoredJobRequest): boolean {
  return request.clinicalText.redact !== null && request.clinicalText.redactOutput === 'redacted_and_unredacted';
}

/** A chunk's recognition as the request shapes it, but for the redaction. */
export function unredactedOutcome(recognised: TranscriptionOutcome, request: StoredJobRequest): TranscriptionOutcome {
  return applyClinicalText(recognised, { ...request.clinicalText, redact: null });
}
