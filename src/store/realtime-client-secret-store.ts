// Realtime client secrets (REALTIME.md "Client secrets"): short-lived, single-use stand-ins for an API
// key, minted by the key's holder (POST /v1/realtime/client_secrets) for a page that must not hold
// the key itself, and presented once in a realtime `start` message. A secret is bound to the key it
// was minted for (and so to its tenant, plan, entitlements, seats and billing); the store keeps its
// SHA-256 only. Using one is atomic across every process on the database: of two starts presenting
// the same secret, exactly one gets its key.

export interface RealtimeClientSecretStore {
  /**
   * A fresh secret for `keyId`, valid until `expiresAtMs` (shown once: only its hash is stored).
   * Secrets expired by `nowMs` are swept on the way, so the table holds only live ones and the used.
   */
  mint(keyId: string, nowMs: number, expiresAtMs: number): Promise<string>;
  /**
   * Uses a presented secret: the id of the key it was minted for, once, when it is unused and not
   * expired at `nowMs`; otherwise null (unknown, malformed, used or expired alike). Whether that key
   * is still active is the caller's to check.
   */
  claim(presented: string, nowMs: number): Promise<string | null>;
  /** Deletes secrets expired by `nowMs`, used or not; returns how many. */
  sweep(nowMs: number): Promise<number>;
}
