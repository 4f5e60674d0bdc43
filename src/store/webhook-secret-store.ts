// Webhook signing secrets per API key (contract "Webhook" rules 4 and 7): separate from API keys,
// shown once, versioned. Rotation makes a new active version; the one it replaces keeps signing for
// 24 h so receivers can move over, and events stay pinned to the version chosen at job acceptance.
// Revocation (the console's brake for a leaked secret) stops every version of the key signing at
// once, the 24 h overlap included.

/** How long a superseded secret keeps signing after the rotation that replaced it. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface WebhookSecretSummary {
  version: number;
  createdAt: string;
  /** `previous`: superseded but still signing until `usableUntil`; `expired`: past it; `revoked`: stopped at `revokedAt`. */
  state: 'active' | 'previous' | 'expired' | 'revoked';
  /** ISO time the version stops signing (inclusive) as its rotation set it; null while active or when revoked active. */
  usableUntil: string | null;
  /** ISO time it was revoked; null unless revoked. */
  revokedAt: string | null;
}

/** A refused secret operation or a secret that cannot be opened; the CLI prints the message as is. */
export class WebhookSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSecretError';
  }
}

export interface WebhookSecretStore {
  /**
   * Seals every stored secret that opens only under a previous master key again under the active one
   * (a master key rotation); returns how many. Each row is replaced only if unchanged since it was read.
   */
  resealUnderActiveKey(): Promise<number>;
  /** First secret of a key; WebhookSecretError when the key is unknown or revoked, or already has an active secret (use rotate). */
  create(keyId: string, nowMs: number): Promise<{ secret: string; version: number }>;
  /** New active version; the previous active one stays usable for 24 h from now. Error when there is no active secret. */
  rotate(keyId: string, nowMs: number): Promise<{ secret: string; version: number }>;
  /**
   * Every version of the key that may still sign (active, or previous within its 24 h) stops signing
   * now; returns those versions, oldest first. The key then has no active secret: create makes a new
   * one. WebhookSecretError when the key is unknown or nothing of it signs any more. Allowed on a
   * revoked API key (its secret may have leaked with it).
   */
  revoke(keyId: string, nowMs: number): Promise<number[]>;
  /** Every version of the key, oldest first, without secret material. */
  list(keyId: string, nowMs: number): Promise<WebhookSecretSummary[]>;
  activeVersion(keyId: string, nowMs: number): Promise<number | null>;
  /** The HMAC key of that version while it may sign (active, or within 24 h of the rotation that superseded it); null otherwise. */
  signingKey(keyId: string, version: number, nowMs: number): Promise<Buffer | null>;
  /**
   * The HMAC keys of every version that may sign at nowMs (the same rule as signingKey): the active
   * one first, then superseded ones still within their 24 h, newest first. Empty for a key without any.
   */
  signingKeys(keyId: string, nowMs: number): Promise<Array<{ version: number; key: Buffer }>>;
}
