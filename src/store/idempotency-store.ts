// Idempotency-Key records, scoped to a tenant, kept 24 hours.

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** Body as sent (JSON text or plain text). */
  body: string;
}

export type IdempotencyBegin = { state: 'started' } | { state: 'in_progress' } | { state: 'conflict' } | { state: 'completed'; response: StoredResponse };

/** Store options: claims made through this store belong to this instance (null: to none, e.g. the CLI). */
export interface IdempotencyStoreOptions {
  owner?: string | null;
}

export interface IdempotencyStore {
  /**
   * Claims (tenant, key) for a request whose content hashes to `fingerprint`. Atomic: of two
   * concurrent callers with the same key, exactly one gets 'started'.
   */
  begin(tenant: string, key: string, fingerprint: string, now?: Date): Promise<IdempotencyBegin>;
  /**
   * Whether a response is stored for (tenant, key) and still kept: a retry that `begin` will answer
   * with it if its content matches. Lets a route skip checks that must not stand between a client
   * and the answer it already had (billing, before a long upload is read).
   */
  hasResponse(tenant: string, key: string, now?: Date): Promise<boolean>;
  /** Stores the final response for replay. */
  complete(tenant: string, key: string, response: StoredResponse): Promise<void>;
  /** Releases a claim whose request failed in a way the client may retry (5xx, aborted upload). */
  release(tenant: string, key: string): Promise<void>;
  /** Deletes records older than the retention (24 h). Returns how many. */
  sweep(now?: Date): Promise<number>;
  /**
   * Drops claims still in progress whose owner (the instance that made them) is no longer registered
   * (src/store/instance-registry.ts): the request died with its process, and keeping the claim
   * would answer the client's retry with 409 idempotency_in_progress for 24 hours. Returns how many.
   */
  releaseClaimsOfDeadInstances(): Promise<number>;
}
