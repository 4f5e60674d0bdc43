// Request-time rules for `webhook_url` (both job-creating routes), checked before any job exists:
// the key must have an active signing secret — its version is pinned to the job — and the
// destination must pass the same validation every delivery attempt repeats (HTTPS, port 443, every
// A/AAAA answer public). Refusals are typed (webhook-admission-errors.ts); the API answers both 422
// `invalid_request`, and their messages never echo the URL.
import type { WebhookSecretStore } from '../store/webhook-secret-store.js';
import { DestinationRefusedError } from './destination-refused-error.js';
import type { ValidatedDestination } from './validate-destination.js';
import { DestinationNotAllowed, SigningSecretMissing } from './webhook-admission-errors.js';

export class WebhookAdmission {
  constructor(
    private readonly secrets: WebhookSecretStore,
    private readonly validate: (url: string) => Promise<ValidatedDestination>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The secret version to pin to the job; throws a WebhookAdmissionError otherwise. */
  async admit(keyId: string, url: string): Promise<number> {
    const version = await this.secrets.activeVersion(keyId, this.clock().getTime());
    if (version === null) throw new SigningSecretMissing();
    try {
      await this.validate(url);
    } catch (error) {
      if (error instanceof DestinationRefusedError) throw new DestinationNotAllowed(error.reason, { cause: error });
      throw error;
    }
    return version;
  }
}
