// Everything a tenant owns in the database, deleted at once (issue 48 item 4, `svc-stt tenants
// erase`): one store for it, so the list of what a tenant owns is written in one place and the
// erasure test checks it against every table. Blobs are not here: the rows name them, and the caller
// deletes them through the BlobStore once the rows are gone.

/** Rows deleted, per table (a table with none is still listed, with 0). */
export type ErasedRows = Readonly<Record<string, number>>;

export interface TenantRowsErasure {
  rows: ErasedRows;
  /** The tenant's API key ids that were deleted (its realtime sessions end within a key watch poll). */
  keyIds: string[];
  /** The jobs deleted, with every blob ref their rows named (audio, partial, result, redacted audio, unredacted). */
  jobs: { id: string; refs: string[] }[];
}

export interface TenantErasureStore {
  /**
   * Deletes, in one transaction, every row of `tenant`: its API keys and what hangs off them
   * (dictionaries, webhook secrets, billing terms, realtime client secrets), its jobs (a worker holding
   * one loses its lease at its next write) and their webhook deliveries, idempotent answers, voices,
   * realtime seats, usage (events, totals, reservations), console accounts with their sessions and
   * second factors, invites and settings. Its data keys are TenantKeys.destroy's. Deleting nothing
   * is not an error: the counts are 0.
   */
  erase(tenant: string): Promise<TenantRowsErasure>;
}
