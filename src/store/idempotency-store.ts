// Idempotency-Key records, scoped to a tenant, kept 24 hours.

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** Body as sent (JSON text or plain text). */
  body: string;
}

export type IdempotencyBegin =
  | { state: 'started' }
  | { state: 'in_progress' }
  | { state: 'conflict' }
  | { state: 'completed'; response: StoredResponse };

export interface IdempotencyStore {
  /**
   * Claims (tenant, key) for a request whose content hashes to `fingerprint`. Atomic: of two
   * concurrent callers with the same key, exactly one gets 'started'.
   */
  begin(tenant: string, key: string, fingerprint: string, now?: Date): IdempotencyBegin;
  /** Stores the final response for replay. */
  complete(tenant: string, key: string, response: StoredResponse): void;
  /** Releases a claim whose request failed in a way the client may retry (5xx, aborted upload). */
  release(tenant: string, key: string): void;
  /** Deletes records older than the retention (24 h). Returns how many. */
  sweep(now?: Date): number;
}
