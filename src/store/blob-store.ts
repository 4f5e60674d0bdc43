// Where audio bytes live (request bodies while they stream in, then job audio until the job ends)
// and job results (provisional revisions while a job runs, the final result until it expires).
// The embedded default is LocalBlobStore (local disk); S3BlobStore (src/store/s3/) keeps them in an
// S3-compatible bucket that any number of API and worker processes share.
//
// A blob reference ("ref") is an opaque string the store hands out and job rows keep: an absolute
// path for LocalBlobStore, an object key (`<prefix>jobs/<jobId>.audio`) for S3BlobStore. A store
// accepts only refs of the shapes it hands out (BlobPathError otherwise), so a ref never reaches
// anything else on disk or in the bucket. Request bodies are local files in every store (the inline
// route transcribes them in-process).
import type { Readable, Writable } from 'node:stream';

import type { AudioSource } from '../audio/audio-source.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

export type { AudioSource } from '../audio/audio-source.js';

/**
 * Which result of a job: provisional revision n, or the final one. A final result replaced after
 * the job succeeded (a decoration) takes a revision, so the one being served is never overwritten
 * under a reader: `<jobId>.result-<n>` beside the first `<jobId>.result`. A job's redacted copy of its
 * audio (`redact_audio`) is kept as a result too, `<jobId>.redacted-audio`, and goes with the result; so
 * is the unredacted transcript of `redact_output=redacted_and_unredacted`, `<jobId>.unredacted` (and
 * `<jobId>.unredacted-<n>`, its provisional revision n while the job runs).
 */
export type ResultKind =
  { kind: 'partial'; revision: number } | { kind: 'final'; revision?: number } | { kind: 'redacted_audio' } | { kind: 'unredacted'; revision?: number };

/** Who still needs a blob, asked by sweepOrphans before it removes an old one. */
export interface BlobOwners {
  /** A job row references this job audio or result ref. */
  isReferenced(ref: string): Promise<boolean>;
  /** The job is still waiting for its direct upload (its presigned form may still be posted). */
  isAwaitingUpload(jobId: string): Promise<boolean>;
}

export interface BlobStore {
  /**
   * A fresh, unused local path to stream one request body into. `prefix` (lowercase letters,
   * digits, `-`) names the route in the file name, for operators reading the folder.
   */
  createUploadPath(prefix: string): string;
  /**
   * Makes an upload durable as a job's audio (local: flushed and renamed atomically into job storage;
   * S3: uploaded, then the local file removed). Returns the job audio ref (what JobRecord.audioPath
   * stores). Never overwrites: an existing one fails with code EEXIST; a missing upload with ENOENT.
   */
  moveToJobAudio(tempPath: string, jobId: string): Promise<string>;
  /**
   * A write stream for a path from createUploadPath (exclusive create). Storage faults (disk full,
   * read-only) surface as stream errors carrying the system error code.
   */
  createUploadStream(path: string): Writable;
  /**
   * Stores a job's result durably and atomically (a reader sees the whole old result or the whole
   * new one, never a part). Returns its ref (what JobRecord.resultPath/partialPath store) and the
   * bytes stored.
   */
  writeResult(jobId: string, result: ResultKind, data: string | Uint8Array): Promise<{ path: string; bytes: number }>;
  /**
   * Makes a file written into an upload path (createUploadPath) a job's result, replacing any at its
   * ref whole (as writeResult), for results too large to hold in memory (a redacted copy of audio).
   * The upload path is gone afterwards. Returns the ref and the bytes stored.
   */
  moveToResult(tempPath: string, jobId: string, result: ResultKind): Promise<{ path: string; bytes: number }>;
  /** A result's bytes; a missing one fails with code ENOENT. */
  readResult(ref: string): Promise<Buffer>;
  /** A result as a stream (returned at once; a missing one errors the stream with code ENOENT). */
  openResult(ref: string): Readable;
  /** Removes an upload, job audio or result; a missing one is not an error. */
  delete(ref: string): Promise<void>;
  exists(ref: string): Promise<boolean>;
  /** The bytes of an upload, job audio or result as stored; a missing one fails with code ENOENT. */
  size(ref: string): Promise<number>;
  /** Where ffmpeg reads job audio from; S3: a presigned GET URL valid for `seconds` (default 15 min). */
  audioSource(ref: string, seconds?: number): Promise<AudioSource>;
  /**
   * Reads `length` bytes at `offset` of an upload, job audio or result (fewer at the end, none past
   * it): the container sniffer's first bytes and ID3 skipping. A missing blob fails with code ENOENT.
   */
  readRange(ref: string, offset: number, length: number): Promise<Buffer>;
  /**
   * Storage reachable and writable enough to serve (readiness probe): local: the folders exist and
   * are writable; S3: the bucket answers (HeadBucket) and the local spool is writable. Throws
   * BlobStoreUnavailableError when not.
   */
  ping(): Promise<void>;
  /**
   * Removes what nobody owns any more, when older than `olderThanMs`: uploads spooled locally (left
   * by a crash mid-request), job audio and results no job references, and direct-upload objects
   * whose job no longer awaits its upload. Returns how many blobs were removed.
   */
  sweepOrphans(owners: BlobOwners, olderThanMs: number, now?: Date): Promise<number>;
  /**
   * Removes every request body in this process's local spool, whatever its age: for the start, when
   * none can still be streaming in, so whatever is there a crash cut off. Returns how many went.
   */
  sweepSpool(): Promise<number>;
  /** Present only when uploads of presigned job forms go straight to storage (S3), bypassing the API. */
  readonly directUploads?: DirectUploads;
}

export interface DirectUploadPolicy {
  jobId: string;
  contentType: string;
  contentLength: number;
  expiresAtMs: number;
}

export interface DirectUploads {
  /**
   * Storage's own browser POST form for the job's upload: post `fields`, then the file as `file`, to
   * `url`. Its signed policy admits exactly `contentLength` bytes of `contentType` to this job's
   * upload object, until `expiresAtMs` (to the second).
   */
  form(policy: DirectUploadPolicy): Promise<{ url: string; fields: Record<string, string> }>;
  /**
   * Copies the job's uploaded object, inside storage, to a fresh job audio ref when it is present
   * with exactly `contentLength` bytes and `contentType` (a re-post of the form then cannot change
   * the job's audio). Returns that ref; null when nothing was uploaded; throws
   * DirectUploadMismatchError when the object differs (it is deleted). The upload object itself is
   * left for the caller to `discard` once it has recorded the copy.
   */
  collect(policy: DirectUploadPolicy): Promise<string | null>;
  /** Deletes whatever was uploaded for the job (its slot expired or was closed); missing is fine. */
  discard(jobId: string): Promise<void>;
}

/** A ref, prefix or job id that is not one this store hands out or accepts. */
export class BlobPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlobPathError';
  }
}

/**
 * The store cannot be used right now (object storage unreachable, failing with 5xx, or refusing
 * our credentials; local folders gone or unwritable). Nothing about the request is wrong: the API
 * answers 503. A StoreUnavailableError of the 'storage', so the edge maps it like a database outage;
 * `cause` carries the underlying failure for the logs.
 */
export class BlobStoreUnavailableError extends StoreUnavailableError {
  constructor(message: string, options: { cause: unknown }) {
    super('storage', options);
    this.message = message;
    this.name = 'BlobStoreUnavailableError';
  }
}

/** A blob that is not there. `code` is ENOENT, as a missing file's error has on local disk. */
export class BlobNotFoundError extends Error {
  readonly code = 'ENOENT';
  constructor(
    readonly ref: string,
    options?: ErrorOptions,
  ) {
    super(`no blob at ${ref}`, options);
    this.name = 'BlobNotFoundError';
  }
}

/** A blob that must not be overwritten exists. `code` is EEXIST, as on local disk. */
export class BlobExistsError extends Error {
  readonly code = 'EEXIST';
  constructor(
    readonly ref: string,
    options?: ErrorOptions,
  ) {
    super(`a blob already exists at ${ref}`, options);
    this.name = 'BlobExistsError';
  }
}

/** A direct upload that is not what its form declared (length or content type); it was deleted. */
export class DirectUploadMismatchError extends Error {
  constructor(
    readonly expected: { contentLength: number; contentType: string },
    readonly actual: { contentLength: number | null; contentType: string | null },
  ) {
    super(
      `the uploaded object has ${actual.contentLength ?? '?'} bytes of ${actual.contentType ?? '?'}; ` +
        `the form declared ${expected.contentLength} bytes of ${expected.contentType}`,
    );
    this.name = 'DirectUploadMismatchError';
  }
}
