// Job audio and results sealed at rest under their tenant's data key (issue 48), around any BlobStore
// (local disk, S3): what is stored is a sealed stream (sealed-stream.ts) whose additional data is the
// blob's name (`<jobId>.audio`, `<jobId>.result-2`, ...), so a sealed result moved onto another job or
// another revision does not open. The content methods take the tenant, which the callers know (a job's
// `tenant`); the rest pass through.
//
// Request bodies stay plain in the local spool while they stream in (the inline route transcribes
// them in-process): a job's body is sealed while it is moved into job audio and the plain file is
// removed then; the sweeper removes what a crash left. A file a client posted straight to the bucket
// (a presigned form) is sealed when it is collected: read once from the bucket, sealed into the spool,
// stored as fresh job audio, and the plain copy deleted. Blobs stored before sealing have no sealed
// header and are served as they are, until the background sealing (plain-content-sealing.ts) seals
// them: a result where it is (the sealed copy replaces it whole), job audio as a fresh copy that the
// job row is pointed at (a worker may be reading the old one by its ref).
//
// ffmpeg reads sealed job audio from a loopback HTTP source that opens only the frames a Range
// covers (sealed-audio-server.ts), so seeking keeps working and nothing is held whole.
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline, Readable, Transform, type TransformCallback, type Writable } from 'node:stream';
import { pipeline as pipe } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

import { checkByteRange, jobAudioName, parseResultName, resultName } from './blob-names.js';
import { type AudioSource, type BlobOwners, BlobPathError, type BlobStore, BlobStoreUnavailableError, type ResultKind } from './blob-store.js';
import type { ContentSealer } from './content-sealer.js';
import { SealedAudioServer } from './sealed-audio-server.js';
import { SealedBlobRange } from './sealed-blob-range.js';
import { openStream, SEALED_STREAM_HEADER_BYTES, sealedStreamKeyVersion } from './sealed-stream.js';
import { SealingError } from './sealing-error.js';

const SPOOL_READ_BYTES = 1024 * 1024;

/** What reads or writes a job's content: these take a tenant (TenantBlobs.forTenant). */
type ContentMethods = 'moveToJobAudio' | 'writeResult' | 'moveToResult' | 'readResult' | 'openResult' | 'audioSource' | 'readRange';

/** The blob store as the service uses it: what has no tenant directly, content through a tenant's view. */
export interface TenantBlobs extends Omit<BlobStore, ContentMethods> {
  /** The store as `tenant`'s content sees it: job audio and results sealed under its data key. */
  forTenant(tenant: string): TenantBlobStore;
}

/** A tenant's view: a BlobStore whose content is sealed, and a body sealed as it streams in. */
export interface TenantBlobStore extends BlobStore {
  /**
   * Seals a body on its way into an upload path (plaintext in, sealed bytes out), for job audio of
   * `jobId` that nothing reads before it is kept: the body is never on disk plain, and is not copied
   * again to be sealed (keepSealedJobAudio).
   */
  sealingJobAudio(jobId: string): Promise<Transform>;
  /** moveToJobAudio for an upload written through sealingJobAudio(jobId); anything else is refused. */
  keepSealedJobAudio(tempPath: string, jobId: string): Promise<string>;
  /** Whether the job audio or result at `ref` is stored plain (written before sealing existed); null when it is gone. */
  storedPlain(ref: string): Promise<boolean | null>;
  /**
   * Plain job audio at `ref` sealed into fresh job audio of its own, whose ref is returned; the plain
   * one is left for the caller to delete once no job row names it.
   */
  sealedCopyOfAudio(ref: string): Promise<string>;
  /**
   * A plain result sealed where it is: the sealed copy is written aside, then replaces it whole, so a
   * reader gets one form or the other and reads either rightly (a sealed one already is left as it is).
   */
  sealResultInPlace(ref: string): Promise<void>;
}

/** What holds no content, passed to the store underneath as it is (both the store and a tenant's view). */
abstract class PassingThrough {
  constructor(readonly raw: BlobStore) {}

  createUploadPath(prefix: string): string {
    return this.raw.createUploadPath(prefix);
  }

  createUploadStream(path: string): Writable {
    return this.raw.createUploadStream(path);
  }

  delete(ref: string): Promise<void> {
    return this.raw.delete(ref);
  }

  exists(ref: string): Promise<boolean> {
    return this.raw.exists(ref);
  }

  size(ref: string): Promise<number> {
    return this.raw.size(ref);
  }

  ping(): Promise<void> {
    return this.raw.ping();
  }

  sweepOrphans(owners: BlobOwners, olderThanMs: number, now?: Date): Promise<number> {
    return this.raw.sweepOrphans(owners, olderThanMs, now);
  }

  sweepSpool(): Promise<number> {
    return this.raw.sweepSpool();
  }
}

export class SealedBlobStore extends PassingThrough implements TenantBlobs {
  readonly directUploads: BlobStore['directUploads'];
  private audioServer: SealedAudioServer | null = null;

  constructor(
    /** The store underneath. */
    raw: BlobStore,
    private readonly sealer: ContentSealer,
  ) {
    super(raw);
    this.directUploads = raw.directUploads;
  }

  forTenant(tenant: string): TenantBlobStore {
    return new TenantView(this.raw, this.sealer, tenant, () => (this.audioServer ??= new SealedAudioServer()));
  }

  /** Stops the loopback audio source (ffmpeg reading through it fails from then on). */
  close(): void {
    this.audioServer?.close();
  }
}

class TenantView extends PassingThrough implements TenantBlobStore {
  readonly directUploads: BlobStore['directUploads'];

  constructor(
    raw: BlobStore,
    private readonly sealer: ContentSealer,
    private readonly tenant: string,
    private readonly audioServer: () => SealedAudioServer,
  ) {
    super(raw);
    const direct = raw.directUploads;
    this.directUploads = direct && {
      form: (policy) => direct.form(policy),
      discard: (jobId) => direct.discard(jobId),
      collect: async (policy) => {
        const plain = await direct.collect(policy);
        if (plain === null) return null;
        try {
          return await this.sealCollected(plain);
        } finally {
          await raw.delete(plain).catch(() => {});
        }
      },
    };
  }

  /** Sealing the body on its way (streamed through a sealed spool file; the plain one is removed). */
  async moveToJobAudio(tempPath: string, jobId: string): Promise<string> {
    const sealed = await this.sealSpooled(tempPath, jobAudioName(jobId));
    try {
      const ref = await this.raw.moveToJobAudio(sealed, jobId);
      await this.raw.delete(tempPath);
      return ref;
    } catch (error) {
      await this.raw.delete(sealed);
      throw error;
    }
  }

  sealingJobAudio(jobId: string): Promise<Transform> {
    return this.sealer.sealStream(this.tenant, jobAudioName(jobId));
  }

  async keepSealedJobAudio(tempPath: string, jobId: string): Promise<string> {
    await this.uploadSize(tempPath);
    if (sealedStreamKeyVersion(await this.raw.readRange(tempPath, 0, SEALED_STREAM_HEADER_BYTES)) === null) {
      throw new SealingError(`${jobAudioName(jobId)}: the upload was not sealed on its way in`);
    }
    return this.raw.moveToJobAudio(tempPath, jobId);
  }

  async storedPlain(ref: string): Promise<boolean | null> {
    try {
      return sealedStreamKeyVersion(await this.raw.readRange(ref, 0, SEALED_STREAM_HEADER_BYTES)) === null;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return null;
      throw error;
    }
  }

  sealedCopyOfAudio(ref: string): Promise<string> {
    return this.sealCollected(ref);
  }

  async sealResultInPlace(ref: string): Promise<void> {
    const parsed = parseResultName(nameOf(ref));
    if (parsed === null) throw new BlobPathError(`not a result of this blob store: ${ref}`);
    if ((await this.storedPlain(ref)) !== true) return;
    const target = this.raw.createUploadPath('sealed');
    try {
      // Judged again on the bytes read: another process may have sealed it since the look above.
      const sealing = await this.sealer.sealStream(this.tenant, nameOf(ref));
      await pipe(this.raw.openResult(ref), refusingSealed(), sealing, this.raw.createUploadStream(target));
      await this.raw.moveToResult(target, parsed.jobId, parsed.result);
    } catch (error) {
      await this.raw.delete(target);
      if (error instanceof AlreadySealed) return;
      throw error;
    }
  }

  /** Sealed; `bytes` counts the plaintext (what a download serves). */
  async writeResult(jobId: string, result: ResultKind, data: string | Uint8Array): Promise<{ path: string; bytes: number }> {
    const plain = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const sealed = await collect(await this.sealer.sealStream(this.tenant, resultName(jobId, result)), plain);
    const { path } = await this.raw.writeResult(jobId, result, sealed);
    return { path, bytes: plain.byteLength };
  }

  /** Sealed; `bytes` counts the plaintext. */
  async moveToResult(tempPath: string, jobId: string, result: ResultKind): Promise<{ path: string; bytes: number }> {
    const size = await this.uploadSize(tempPath);
    const sealed = await this.sealSpooled(tempPath, resultName(jobId, result));
    try {
      const { path } = await this.raw.moveToResult(sealed, jobId, result);
      await this.raw.delete(tempPath);
      return { path, bytes: size };
    } catch (error) {
      await this.raw.delete(sealed);
      throw error;
    }
  }

  async readResult(ref: string): Promise<Buffer> {
    return collect(this.opener(ref), await this.raw.readResult(ref));
  }

  openResult(ref: string): Readable {
    return pipeline(this.raw.openResult(ref), this.opener(ref), () => {});
  }

  /** The store's own source for plain audio; the loopback source for sealed audio. */
  async audioSource(ref: string, seconds?: number): Promise<AudioSource> {
    const range = await this.range(ref);
    return range === null ? this.raw.audioSource(ref, seconds) : this.audioServer().serve(range, nameOf(ref), seconds);
  }

  /** Of the plaintext. */
  async readRange(ref: string, offset: number, length: number): Promise<Buffer> {
    checkByteRange(offset, length);
    const range = await this.range(ref);
    return range === null ? this.raw.readRange(ref, offset, length) : range.read(offset, length);
  }

  private range(ref: string): Promise<SealedBlobRange | null> {
    // A spooled upload is never sealed, whatever its first bytes are.
    if (isUpload(ref)) return Promise.resolve(null);
    return SealedBlobRange.open(this.raw, ref, nameOf(ref), (version) => this.sealer.keys.version(this.tenant, version));
  }

  private opener(ref: string): Transform {
    return openStream((version) => this.sealer.keys.version(this.tenant, version), nameOf(ref), { plainPassesThrough: true });
  }

  /** A collected direct upload (plain job audio in the bucket), sealed as fresh job audio of its own. */
  private async sealCollected(plainRef: string): Promise<string> {
    const source = await this.raw.audioSource(plainRef);
    const id = randomUUID();
    const target = this.raw.createUploadPath('sealed');
    try {
      const body = source.kind === 'file' ? createReadStream(source.path, { highWaterMark: SPOOL_READ_BYTES }) : await fetchBody(source.url);
      await pipe(body, await this.sealer.sealStream(this.tenant, jobAudioName(id)), this.raw.createUploadStream(target));
      return await this.raw.moveToJobAudio(target, id);
    } catch (error) {
      await this.raw.delete(target);
      throw error;
    }
  }

  /** The size of a spooled upload of this store; a missing one fails with ENOENT. */
  private async uploadSize(tempPath: string): Promise<number> {
    if (!isUpload(tempPath)) throw new BlobPathError(`not an upload of this blob store: ${tempPath}`);
    return this.raw.size(tempPath);
  }

  /** A fresh spool file holding the upload at `tempPath` sealed for the blob named `name`. */
  private async sealSpooled(tempPath: string, name: string): Promise<string> {
    await this.uploadSize(tempPath);
    const target = this.raw.createUploadPath('sealed');
    try {
      // Read in 1 MiB pieces: whole frames, sealed without copying them together.
      await pipe(
        createReadStream(tempPath, { highWaterMark: SPOOL_READ_BYTES }),
        await this.sealer.sealStream(this.tenant, name),
        this.raw.createUploadStream(target),
      );
    } catch (error) {
      await this.raw.delete(target);
      throw error;
    }
    return target;
  }
}

/** The body of a presigned GET (the store's own URL for a blob it holds). */
async function fetchBody(url: string): Promise<Readable> {
  const response = await fetch(url);
  if (!response.ok || !response.body) {
    throw new BlobStoreUnavailableError(`reading a collected upload answered ${response.status}`, { cause: new Error(`HTTP ${response.status}`) });
  }
  return Readable.fromWeb(response.body as WebReadableStream);
}

class AlreadySealed extends Error {}

/** Plain bytes passed on as they come; an error (AlreadySealed) when they start as a sealed stream does. */
function refusingSealed(): Transform {
  let head: Buffer | null = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      if (head === null) return done(null, chunk);
      head = Buffer.concat([head, chunk]);
      if (head.length < SEALED_STREAM_HEADER_BYTES) return done();
      if (sealedStreamKeyVersion(head) !== null) return done(new AlreadySealed());
      const first = head;
      head = null;
      done(null, first);
    },
    flush(done: TransformCallback) {
      // Shorter than a sealed stream's header: plain.
      if (head !== null && head.length > 0) this.push(head);
      done();
    },
  });
}

/** Spooled request bodies (upload-spool.ts names): local, transient, never sealed. */
function isUpload(ref: string): boolean {
  return nameOf(ref).endsWith('.part');
}

/** The blob's name, its sealed identity: the last part of a path or an object key. */
function nameOf(ref: string): string {
  return ref.slice(Math.max(ref.lastIndexOf('/'), ref.lastIndexOf('\\')) + 1);
}

/** `input` through `transform`, collected. */
async function collect(transform: Transform, input: Uint8Array): Promise<Buffer> {
  transform.end(input);
  return Buffer.concat((await transform.toArray()) as Buffer[]);
}
