// Whose session a `start` opens: the key it names, or the key a client secret was minted for
// (REALTIME.md "Client secrets"). A secret is used up by the start that presents it, whatever
// follows (a refusal for seats or billing included): a second start with it finds nothing. The key
// behind a secret is read as it stands now, so a key revoked since the secret was minted opens nothing.
import type { StartCredential } from '../contract/realtime-start.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { KeyStore } from '../store/key-store.js';
import type { RealtimeClientSecretStore } from '../store/realtime-client-secret-store.js';

export interface StartCredentialDeps {
  keys: Pick<KeyStore, 'authenticate' | 'get'>;
  clientSecrets: Pick<RealtimeClientSecretStore, 'claim'>;
  /** Epoch milliseconds: a client secret's expiry is judged on this clock (the service's). */
  clock: () => number;
}

/**
 * The key record the credential stands for, or null: an unknown or malformed key or secret, a
 * secret used or expired. Revocation is the caller's to check (`revokedAt`), as for any key read.
 */
export async function keyOfStart(credential: StartCredential, deps: StartCredentialDeps): Promise<ApiKeyRecord | null> {
  if (credential.kind === 'api_key') return deps.keys.authenticate(credential.key);
  const keyId = await deps.clientSecrets.claim(credential.secret, deps.clock());
  return keyId === null ? null : deps.keys.get(keyId);
}
