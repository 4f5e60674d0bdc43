// Why a request's webhook_url is refused before any job exists, in the webhooks feature's terms. The
// API gives each kind its status (src/api/error-mapping.ts, one table over every kind). Messages are
// fixed texts shown to clients as they are: they never echo the URL, its host or an address.
import { KindedError } from '../domain/kinded-error.js';

/** Every kind, once; the API's table is typed over this union, so a new kind cannot go unmapped. */
export type WebhookAdmissionErrorKind = 'signing_secret_missing' | 'destination_not_allowed';

export abstract class WebhookAdmissionError extends KindedError<WebhookAdmissionErrorKind> {}

/** The key has no active signing secret, so no event for it could be signed. */
export class SigningSecretMissing extends WebhookAdmissionError {
  readonly kind = 'signing_secret_missing';

  constructor() {
    super('webhook_url needs an active webhook signing secret on this key');
  }
}

/** The destination fails the rules every delivery attempt repeats (HTTPS, port 443, public addresses). */
export class DestinationNotAllowed extends WebhookAdmissionError {
  readonly kind = 'destination_not_allowed';

  /** `reason` is DestinationRefusedError's fixed phrase, safe to show (it names no URL, host or address). */
  constructor(
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`webhook_url is not an allowed destination: ${reason}`, options);
  }
}
