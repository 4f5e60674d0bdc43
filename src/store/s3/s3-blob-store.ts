// BlobStore in an S3-compatible bucket, shared by every API and worker process of a deployment.
// Layout and ref confinement: object-keys.ts. Request bodies still stream into a local spool
// (upload-spool.ts): the inline route transcribes them in-process, and a job's body is uploaded
// from there once it is whole. Workers read job audio in place through presigned GET URLs (ffmpeg
// issues Range requests), so no process ever holds a whole recording in memory or on disk.
import { createReadStream } from 'node:fs';
import { lstat, rm, stat, unlink } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';

import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, paginateListObjectsV2, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

import { checkByteRange } from '../blob-names.js';
import { type AudioSource, BlobExistsError, type BlobOwners, type BlobStore, BlobStoreUnavailableError, type ResultKind } from '../blob-store.js';
import { readFileRange } from '../read-file-range.js';
import { UploadSpool } from '../upload-spool.js';
import { type KeyArea, ObjectKeys } from './object-keys.js';
import { ObjectReadStream } from './object-read-stream.js';
import { createS3Clients, type S3Clients } from './s3-clients.js';
import { S3DirectUploads } from './s3-direct-uploads.js';
import { httpStatusOf, isNotFound, storageError } from './s3-errors.js';
import { type S3BlobStoreSettings, S3SettingsError, s3SettingsProblems } from './s3-settings.js';

/** Long enough for ffmpeg to open a window of a job and read it through; a chunk asks afresh. */
const DEFAULT_AUDIO_URL_SECONDS = 15 * 60;
/** The SDK's presigner refuses more than a week (SigV4's limit). */
const MAX_AUDIO_URL_SECONDS = 7 * 24 * 3600;
/** Uploads from the spool retry a failed attempt (the SDK cannot replay a streamed body itself). */
const UPLOAD_ATTEMPTS = 3;
const UPLOAD_RETRY_DELAY_MS = 250;
/**
 * Calls whose whole answer is small (a stored result read whole, a header, a byte range, a HEAD, a
 * DELETE) fail as unavailable when storage has not answered them in this long, SDK retries included.
 * Without it a link that drops packets holds the request until the socket idles out (60 s, per
 * attempt): `bench faults` saw result reads hang past a client's 20 s deadline in a bucket black hole.
 */
export const SMALL_CALL_DEADLINE_MS = 10_000;

export class S3BlobStore implements BlobStore {
  readonly directUploads: S3DirectUploads;
  private readonly clients: S3Clients;
  private readonly bucket: string;
  private readonly keys: ObjectKeys;
  private readonly spool: UploadSpool;

  constructor(settings: S3BlobStoreSettings) {
    const problems = s3SettingsProblems(settings);
    if (problems.length > 0) throw new S3SettingsError(problems);
    this.bucket = settings.bucket;
    this.keys = new ObjectKeys(settings.prefix ?? '');
    this.spool = new UploadSpool(settings.spoolDir);
    this.clients = createS3Clients(settings);
    this.directUploads = new S3DirectUploads(this.clients, this.bucket, this.keys, settings.uploadEncryption ?? null);
  }

  /** Closes the clients' connections (the store is unusable afterwards). */
  close(): void {
    this.clients.destroy();
  }

  createUploadPath(prefix: string): string {
    return this.spool.createPath(prefix);
  }

  createUploadStream(path: string): Writable {
    return this.spool.createStream(path);
  }

  async moveToJobAudio(tempPath: string, jobId: string): Promise<string> {
    const source = this.spool.confine(tempPath);
    const key = this.keys.jobAudio(jobId);
    const { size } = await stat(source); // a missing upload fails with ENOENT, as on local disk
    // Never overwrite. `If-None-Match: *` makes the PUT itself conditional (S3 since 2024, MinIO,
    // Ceph); servers that ignore it (s3rver) are covered by the HEAD before. Between the two, only a
    // second upload for the same job id could interfere, and callers pass fresh UUIDs.
    // One PUT takes up to 5 GB (S3's limit; the default upload limit is 100 MB).
    if (await this.objectExists(key)) throw new BlobExistsError(key);
    await this.putSpooled(source, key, size, { ifNoneMatch: true });
    await unlink(source);
    return key;
  }

  async moveToResult(tempPath: string, jobId: string, result: ResultKind): Promise<{ path: string; bytes: number }> {
    const source = this.spool.confine(tempPath);
    const key = this.keys.result(jobId, result);
    const { size } = await stat(source);
    // One PUT: visible all at once, replacing the previous one (as writeResult's).
    await this.putSpooled(source, key, size, { ifNoneMatch: false });
    await unlink(source);
    return { path: key, bytes: size };
  }

  /**
   * PUTs a spooled file, retrying an attempt storage failed (the SDK cannot replay a streamed body).
   * With `ifNoneMatch`, an existing object is BlobExistsError, unless it is our own earlier attempt's.
   */
  private async putSpooled(source: string, key: string, size: number, { ifNoneMatch }: { ifNoneMatch: boolean }): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const body = createReadStream(source);
      try {
        const condition = ifNoneMatch ? { IfNoneMatch: '*' } : {};
        await this.clients.api.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: size, ...condition }));
        return;
      } catch (error) {
        if (ifNoneMatch && httpStatusOf(error) === 412) {
          // On a retry, the object that exists is our own earlier attempt whose answer was lost.
          if (attempt > 1) return;
          throw new BlobExistsError(key, { cause: error });
        }
        const mapped = storageError(error, key);
        if (!(mapped instanceof BlobStoreUnavailableError) || attempt >= UPLOAD_ATTEMPTS) throw mapped;
      } finally {
        body.destroy();
      }
      await delay(UPLOAD_RETRY_DELAY_MS * attempt);
    }
  }

  async writeResult(jobId: string, result: ResultKind, data: string | Uint8Array): Promise<{ path: string; bytes: number }> {
    const key = this.keys.result(jobId, result);
    const body = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    // One PUT of the whole body: S3 makes it visible all at once, replacing the previous one.
    await this.call(key, () => this.clients.api.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: body.byteLength })));
    return { path: key, bytes: body.byteLength };
  }

  async readResult(ref: string): Promise<Buffer> {
    const key = this.keys.confine(ref, ['results']);
    return this.callWithin(key, async (abortSignal) => {
      const object = await this.clients.api.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal });
      return Buffer.from(await object.Body!.transformToByteArray());
    });
  }

  openResult(ref: string): Readable {
    const key = this.keys.confine(ref, ['results']);
    return new ObjectReadStream(
      (signal) =>
        this.call(key, async () => {
          const object = await this.clients.api.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: signal });
          return object.Body as Readable;
        }),
      (error) => storageError(error, key),
    );
  }

  async delete(ref: string): Promise<void> {
    const local = this.spool.owned(ref);
    if (local !== null) return rm(local, { force: true });
    const key = this.keys.confine(ref, ['jobs', 'results', 'uploads']);
    await this.callWithin(key, (abortSignal) => this.clients.api.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal }));
  }

  async exists(ref: string): Promise<boolean> {
    const local = this.spool.owned(ref);
    if (local !== null) return (await lstat(local).catch(() => null))?.isFile() === true;
    return this.objectExists(this.keys.confine(ref, ['jobs', 'results', 'uploads']));
  }

  async size(ref: string): Promise<number> {
    const local = this.spool.owned(ref);
    if (local !== null) return (await stat(local)).size;
    const key = this.keys.confine(ref, ['jobs', 'results', 'uploads']);
    const head = await this.call(key, () => this.clients.api.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })));
    return head.ContentLength ?? 0;
  }

  async audioSource(ref: string, seconds = DEFAULT_AUDIO_URL_SECONDS): Promise<AudioSource> {
    const key = this.keys.confine(ref, ['jobs']);
    if (!(Number.isInteger(seconds) && seconds >= 1 && seconds <= MAX_AUDIO_URL_SECONDS)) throw new RangeError('a presigned URL is valid for 1 s to 7 days');
    const url = await this.call(key, () =>
      // Signed for the internal endpoint: the reader is a worker's ffmpeg, inside the service's network.
      getSignedUrl(this.clients.api, new GetObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn: seconds }),
    );
    return { kind: 'url', url, label: `s3://${this.bucket}/${key}` };
  }

  async readRange(ref: string, offset: number, length: number): Promise<Buffer> {
    const local = this.spool.owned(ref);
    const key = local ?? this.keys.confine(ref, ['jobs', 'results', 'uploads']);
    checkByteRange(offset, length);
    if (local !== null) return readFileRange(local, offset, length);
    if (length === 0) return Buffer.alloc(0);
    const deadline = AbortSignal.timeout(SMALL_CALL_DEADLINE_MS);
    try {
      const range = new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${offset}-${offset + length - 1}` });
      const object = await this.clients.api.send(range, { abortSignal: deadline });
      const bytes = Buffer.from(await object.Body!.transformToByteArray());
      // A server that ignores the range (s3rver reads `bytes=0-0` as the whole object) answers
      // without Content-Range: the body then starts at byte 0, not at `offset`. Either way the
      // sniffer gets exactly the bytes it asked for.
      const start = object.ContentRange ? 0 : offset;
      return bytes.subarray(start, start + length);
    } catch (error) {
      // 416: the range starts at or past the end (an empty object has no satisfiable range at all).
      if (httpStatusOf(error) === 416) return Buffer.alloc(0);
      throw deadline.aborted ? unanswered(error) : storageError(error, key);
    }
  }

  async ping(): Promise<void> {
    try {
      await this.clients.api.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: AbortSignal.timeout(SMALL_CALL_DEADLINE_MS) });
    } catch (error) {
      throw new BlobStoreUnavailableError(`the bucket does not answer: ${(error as Error).name ?? 'error'}`, { cause: error });
    }
    try {
      await this.spool.check();
    } catch (error) {
      throw new BlobStoreUnavailableError('the upload spool folder is missing, not writable or full', { cause: error });
    }
  }

  sweepSpool(): Promise<number> {
    return this.spool.sweep(Number.POSITIVE_INFINITY);
  }

  async sweepOrphans(owners: BlobOwners, olderThanMs: number, now = new Date()): Promise<number> {
    // The age guard protects blobs in use: a body still streaming into the spool, audio stored a
    // moment before its job row commits, an upload a browser is still posting.
    const cutoff = now.getTime() - olderThanMs;
    let removed = await this.spool.sweep(cutoff);
    for (const area of ['jobs', 'results', 'uploads'] as const satisfies readonly KeyArea[]) {
      for await (const key of this.listOlderThan(area, cutoff)) {
        const owned = area === 'uploads' ? await owners.isAwaitingUpload(this.keys.uploadJobId(key)) : await owners.isReferenced(key);
        if (owned) continue;
        await this.callWithin(key, (abortSignal) => this.clients.api.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal }));
        removed += 1;
      }
    }
    return removed;
  }

  /** Keys this store hands out in `area`, last modified before `cutoffMs`. */
  private async *listOlderThan(area: KeyArea, cutoffMs: number): AsyncGenerator<string> {
    const pages = paginateListObjectsV2({ client: this.clients.api }, { Bucket: this.bucket, Prefix: this.keys.area(area) });
    try {
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          const key = object.Key;
          if (key === undefined || this.keys.areaOf(key, [area]) === null) continue; // not ours
          if (object.LastModified === undefined || object.LastModified.getTime() > cutoffMs) continue;
          yield key;
        }
      }
    } catch (error) {
      throw storageError(error, this.keys.area(area));
    }
  }

  private async objectExists(key: string): Promise<boolean> {
    const deadline = AbortSignal.timeout(SMALL_CALL_DEADLINE_MS);
    try {
      await this.clients.api.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: deadline });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw deadline.aborted ? unanswered(error) : storageError(error, key);
    }
  }

  /** Runs an S3 call, its failures turned into the store's errors. */
  private async call<T>(key: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw storageError(error, key);
    }
  }

  /** `call` for a small answer, abandoned as unavailable after SMALL_CALL_DEADLINE_MS. */
  private async callWithin<T>(key: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = AbortSignal.timeout(SMALL_CALL_DEADLINE_MS);
    try {
      return await run(deadline);
    } catch (error) {
      throw deadline.aborted ? unanswered(error) : storageError(error, key);
    }
  }
}

function unanswered(cause: unknown): BlobStoreUnavailableError {
  return new BlobStoreUnavailableError(`object storage did not answer within ${SMALL_CALL_DEADLINE_MS} ms`, { cause });
}
