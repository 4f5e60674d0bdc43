// Existing installations (issue 48, item 5): content written before sealing existed stays readable (a
// sealed value describes itself; a plain one is read as it is) and is sealed in the background, a
// batch at a time, by the processes that do housekeeping, while everything keeps answering. Resumable
// and idempotent by construction: each batch finds what is still plain, so a pass cut off anywhere is
// picked up by the next, in any process; a value a writer replaced between the read and the write is
// left alone (the write names the old value, and the writer's own value is sealed already).

/** The columns that hold content, as `table.column`. */
export const SEALED_COLUMNS = [
  'jobs.request',
  'jobs.progress',
  'idempotency_records.response_body',
  'voice_profiles.profile',
  'key_dictionaries.terms',
] as const;
export type SealedColumn = (typeof SEALED_COLUMNS)[number];

export interface PlainContentSealing {
  /** Seals up to `limit` plain values of each column; how many it sealed in all. */
  sealBatch(limit: number): Promise<number>;
  /** The values still plain, per column. */
  plainCounts(): Promise<Record<SealedColumn, number>>;
}

// Blobs (job audio, results) describe themselves too (a sealed header), but a blob can only be found
// through the job row that names it (which also names its tenant): the background sealing walks the
// jobs in id order, a batch at a time, reading each blob's first bytes. A job a worker holds is passed
// over (its audio may be being read by its ref) and looked at again by a later walk.

/** What one batch of a walk over the jobs' blobs did. */
export interface PlainBlobBatch {
  /** Where the next batch starts (the last job looked at); null when no job was left after this batch. */
  next: string | null;
  /** Blobs sealed. */
  sealed: number;
  /** Plain blobs seen and left plain for now (a worker holds the job, or sealing it failed). */
  left: number;
}

export interface PlainBlobSealing {
  /** Looks at the blobs of up to `limit` jobs after job id `after` (null: from the first) and seals the plain ones it may. */
  sealBatch(after: string | null, limit: number): Promise<PlainBlobBatch>;
  /** The blobs the rows of jobs after `after` (null: all) name: what a walk has still to look at. */
  blobsAfter(after: string | null): Promise<number>;
}
