// A tenant asks for one more attempt of a settled webhook event (the console's Deliveries page).
// The event is due at once and the delivery worker makes that one attempt like any other: destination
// validated again, signed with every secret version that may sign at that moment (never a revoked or
// expired one), never retried on the schedule. Another tenant's event is answered as an unknown one.
import { KindedError } from '../domain/kinded-error.js';
import type { KeyStore } from '../store/key-store.js';
import type { WebhookDelivery, WebhookOutbox } from '../store/webhook-outbox.js';
import type { WebhookSecretStore } from '../store/webhook-secret-store.js';

export type RedeliveryRefusalKind = 'unknown_event' | 'key_revoked' | 'not_settled' | 'no_signing_secret';

/** Why an event cannot be redelivered; messages name the event by id only. */
export class RedeliveryRefused extends KindedError<RedeliveryRefusalKind> {
  constructor(
    readonly kind: RedeliveryRefusalKind,
    message: string,
  ) {
    super(message);
  }
}

export interface RedeliveryDeps {
  outbox: Pick<WebhookOutbox, 'forEvent' | 'redeliver'>;
  keys: Pick<KeyStore, 'get'>;
  secrets: Pick<WebhookSecretStore, 'signingKeys'>;
}

/** Makes the tenant's settled event due again for one attempt; returns it as it was before. */
export async function redeliverEvent(deps: RedeliveryDeps, tenant: string, eventId: string, nowMs: number): Promise<WebhookDelivery> {
  const event = await deps.outbox.forEvent(eventId);
  const key = event ? await deps.keys.get(event.keyId) : null;
  if (!event || !key || key.tenant !== tenant) throw new RedeliveryRefused('unknown_event', 'there is no such event');
  // The worker would not send it anyway (src/jobs/key-revocation.ts).
  if (key.revokedAt !== null) throw new RedeliveryRefused('key_revoked', `the API key of ${eventId} was revoked: its events are not sent`);
  if (event.state === 'pending') throw new RedeliveryRefused('not_settled', `${eventId} is still being delivered: its next attempt is scheduled`);
  if ((await deps.secrets.signingKeys(event.keyId, nowMs)).length === 0) {
    throw new RedeliveryRefused('no_signing_secret', `${event.keyId} has no webhook signing secret that signs now: create one first`);
  }
  if (!(await deps.outbox.redeliver(eventId, nowMs))) {
    throw new RedeliveryRefused('not_settled', `${eventId} is already being delivered again`);
  }
  return event;
}
