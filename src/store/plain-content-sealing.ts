// Existing installations (issue 48, item 5): content written before sealing existed stays readable (a
// sealed value describes itself; a plain one is read as it is) and is sealed in the background, a
// batch at a time, by the processes that do housekeeping, while everything keeps answering. Resumable
// and idempotent by construction: each batch finds what is still plain, so a pass cut off anywhere is
// picked up by the next, in any process; a value a writer replaced between the read and the write is
// left alone (the write names the old value, and the writer's own value is sealed already).

/** The columns that hold content, as `table.column`. */
export const SEALED_COLUMNS = ['jobs.request', 'jobs.progress', 'idempotency_records.response_body', 'voice_profiles.profile'] as const;
export type SealedColumn = (typeof SEALED_COLUMNS)[number];

export interface PlainContentSealing {
  /** Seals up to `limit` plain values of each column; how many it sealed in all. */
  sealBatch(limit: number): Promise<number>;
  /** The values still plain, per column. */
  plainCounts(): Promise<Record<SealedColumn, number>>;
}
