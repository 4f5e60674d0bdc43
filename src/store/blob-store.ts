// Where audio bytes live: request bodies while they stream in, then job audio until the job ends.
// The embedded default is LocalBlobStore (local disk); an S3-compatible store can replace it.

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
  /** Removes an upload or job audio file; a missing file is not an error. */
  delete(path: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  /**
   * Removes uploads older than `olderThanMs` (left by a crash mid-request) and job audio older than
   * that which no job references. Returns how many files were removed.
   */
  sweepOrphans(isReferenced: (path: string) => boolean, olderThanMs: number, now?: Date): Promise<number>;
}

export class BlobPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlobPathError';
  }
}
