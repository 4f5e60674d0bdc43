// Why the pipeline refuses a request, in its own terms: what is wrong, never how to answer it. The API
// turns each kind into a status (src/api/error-mapping.ts, one table over every kind); jobs turn the
// ones that can happen after acceptance into stored failure codes (src/jobs/job-failure.ts). Messages
// are fixed texts chosen here and shown to clients as they are: they never echo request content.
import { KindedError } from '../domain/kinded-error.js';

/** Every kind, once; the API's table is typed over this union, so a new kind cannot go unmapped. */
export type PipelineErrorKind = 'invalid_request_field' | 'unprocessable_request' | 'entitlement_missing' | 'unsupported_detected_language';

export abstract class PipelineError extends KindedError<PipelineErrorKind> {}

/** A field is malformed, missing, or names an option that does not exist (a model, a format). */
export class InvalidRequestField extends PipelineError {
  readonly kind = 'invalid_request_field';
}

/**
 * The request is well formed but cannot be served as asked: an unsupported language, vocabulary,
 * patterns or hints beyond their rules, features that do not combine, a refused webhook_url.
 */
export class UnprocessableRequest extends PipelineError {
  readonly kind = 'unprocessable_request';
}

/** The key is not entitled to a feature the request asks for (automatic language detection, patterns). */
export class EntitlementMissing extends PipelineError {
  readonly kind = 'entitlement_missing';
}

/**
 * Detection found the audio's likeliest language outside the supported families (or the hinted
 * candidates). Not the request's fault as sent, so inline it is refused and a job fails with it.
 */
export class UnsupportedDetectedLanguage extends PipelineError {
  readonly kind = 'unsupported_detected_language';

  /** `detected` is for logs (the engine's tag); the message stays fixed. */
  constructor(
    readonly detected: string,
    options?: ErrorOptions,
  ) {
    super('the detected language is not supported', options);
  }
}
