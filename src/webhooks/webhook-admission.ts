// Request-time rules for `webhook_url` (both job-creating routes), checked before any job exists:
// the key must have an active signing secret — its version is pinned to the job — and the
// destination must pass the same validation every delivery attempt repeats (HTTPS, port 443, every
// A/AAAA answer public). Both refusals are 422 `invalid_request`; messages never echo the URL.
import { ApiError } from '../api/api-error.js';
import type { WebhookSecretStore } from '../store/webhook-secret-store.js';
import { DestinationRefusedError } from './destination-refused-error.js';
import type { ValidatedDestination } from './validate-destination.js';

export class WebhookAdmission {
  constructor(
    private readonly secrets: WebhookSecretStore,
    private readonly validate: (url: string) => Promise<ValidatedDestination>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The secret version to pin to the job; throws the contract's 422 otherwise. */
  async admit(keyId: string, url: string): Promise<number> {
    const version = this.secrets.activeVersion(keyId, this.clock().getTime());
    if (version === null) throw new ApiError(422, 'invalid_request', 'webhook_url needs an active webhook signing secret on this key');
    try {
      await this.validate(url);
    } catch (error) {
      if (error instanceof DestinationRefusedError) throw new ApiError(422, 'invalid_request', `webhook_url is not an allowed destination: ${error.reason}`);
      throw error;
    }
    return version;
  }
}
