// Where audio bytes live (request bodies while they stream in, then job audio until the job ends)
// and job results (provisional revisions while a job runs, the final result until it expires).
// The embedded default is LocalBlobStore (local disk); an S3-compatible store can replace it.
import type { Readable, Writable } from 'node:stream';

export type ResultKind = { kind: 'partial'; revision: number } | { kind: 'final' };

export interface BlobStore {
  /**
   * A fresh, unused path to stream one request body into. `prefix` (lowercase letters, digits, `-`)
   * names the route in the file name, for operators reading the folder.
   */
  createUploadPath(prefix: string): string;
  /**
   * Makes an upload durable as a job's audio: flushes it to disk and renames it atomically into job
   * storage. Returns the job audio path (what JobRecord.audioPath stores). Never overwrites.
   */
  moveToJobAudio(tempPath: string, jobId: string): Promise<string>;
  /**
   * A write stream for a path from createUploadPath (exclusive create). Storage faults (disk full,
   * read-only) surface as stream errors carrying the system error code.
   */
  createUploadStream(path: string): Writable;
  /**
   * Stores a job's result durably and atomically (a reader sees the whole old file or the whole new
   * one, never a part). Returns its path (what JobRecord.resultPath/partialPath store) and the bytes
   * stored.
   */
  writeResult(jobId: string, result: ResultKind, data: string | Uint8Array): Promise<{ path: string; bytes: number }>;
  readResult(path: string): Promise<Buffer>;
  openResult(path: string): Readable;
  /** Removes an upload, job audio or result file; a missing file is not an error. */
  delete(path: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  /**
   * Removes uploads older than `olderThanMs` (left by a crash mid-request), and job audio and
   * results older than that which no job references. Returns how many files were removed.
   */
  sweepOrphans(isReferenced: (path: string) => Promise<boolean>, olderThanMs: number, now?: Date): Promise<number>;
}

export class BlobPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlobPathError';
  }
}
