// A key mints a realtime client secret for a page that must not hold the key (the console's
// playground, a clinician's browser): the page presents it once, in its session's `start`, and the
// session runs as the key's (REALTIME.md "Client secrets"). Minting is refused where the key's own
// realtime start would be at the key: it is authenticated (revoked keys never get here) and its
// realtime usage must not be blocked (a paused key, a used allowance: 402). The secret's expiry is a
// whole second, so the `expires_at` told is exactly when it stops working. One audit line per
// secret: ids and the expiry, never the secret.
import type { UsageBilling } from '../billing/usage-billing.js';
import type { ClientSecretRequest } from '../contract/client-secret-request.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { RealtimeClientSecretStore } from '../store/realtime-client-secret-store.js';

/** The audit event of a minted secret: log readers and tests match on it. */
export const CLIENT_SECRET_MINTED = 'realtime.client_secret_minted';

export interface MintClientSecretDeps {
  secrets: Pick<RealtimeClientSecretStore, 'mint'>;
  billing: Pick<UsageBilling, 'requireAllowance'>;
  clock: () => Date;
}

export interface MintClientSecretInput {
  key: ApiKeyRecord;
  request: ClientSecretRequest;
  log: { info(details: object, message: string): void };
}

export interface MintedClientSecret {
  /** Shown once: only its hash is stored. */
  value: string;
  /** Unix seconds: the first second at which it is refused. */
  expiresAt: number;
}

export async function mintRealtimeClientSecret(input: MintClientSecretInput, deps: MintClientSecretDeps): Promise<MintedClientSecret> {
  const { key } = input;
  await deps.billing.requireAllowance(key, 'realtime');
  const nowMs = deps.clock().getTime();
  const expiresAt = Math.floor(nowMs / 1000) + input.request.expiresAfterSeconds;
  const value = await deps.secrets.mint(key.id, nowMs, expiresAt * 1000);
  input.log.info({ audit: CLIENT_SECRET_MINTED, keyId: key.id, tenantId: key.tenant, expiresAt }, 'realtime client secret minted');
  return { value, expiresAt };
}
