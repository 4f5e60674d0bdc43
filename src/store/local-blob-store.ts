// BlobStore on local disk. Layout under the root (the service uses `<dataDir>/blobs`):
//   uploads/<prefix>-<uuid>.part   request bodies being received
//   jobs/<jobId>.audio             durable job audio
//   results/<jobId>.partial-<n>    provisional result revision n of a running job
//   results/<jobId>.result         final result
// All folders are on one file system, so moving an upload into jobs/ is a rename: atomic, no copy.
// Every path taken from a caller must name a file directly inside one of the folders.
import { createReadStream, createWriteStream, mkdirSync, realpathSync } from 'node:fs';
import { link, lstat, open, readFile, readdir, rename, rm, unlink } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { BlobPathError, type BlobStore, type ResultKind } from './blob-store.js';

const UPLOADS = 'uploads';
const JOBS = 'jobs';
const RESULTS = 'results';
const PREFIX = /^[a-z0-9-]{1,32}$/;
const JOB_ID = /^[A-Za-z0-9_-]{1,128}$/;
// The names this store hands out; anything else in its folders is not ours to delete or move.
const UPLOAD_NAME = /^[a-z0-9-]{1,32}-[0-9a-f-]{36}\.part$/;
const JOB_AUDIO_NAME = /^[A-Za-z0-9_-]{1,128}\.audio$/;
// Results, and the temporary files they are written through (swept like uploads when a crash strands one).
const RESULT_NAME = /^[A-Za-z0-9_-]{1,128}\.(?:partial-\d{1,9}|result)(?:\.tmp-[0-9a-f-]{36})?$/;

/** The blob folder inside a data folder; the server and the admin CLI (key revocation) both use it. */
export function localBlobRoot(dataDir: string): string {
  return join(dataDir, 'blobs');
}

type Area = typeof UPLOADS | typeof JOBS | typeof RESULTS;
const NAME_PATTERNS: Record<Area, RegExp> = { [UPLOADS]: UPLOAD_NAME, [JOBS]: JOB_AUDIO_NAME, [RESULTS]: RESULT_NAME };

export class LocalBlobStore implements BlobStore {
  readonly root: string;
  private readonly uploadsDir: string;
  private readonly jobsDir: string;
  private readonly resultsDir: string;

  constructor(root: string) {
    mkdirSync(join(root, UPLOADS), { recursive: true });
    mkdirSync(join(root, JOBS), { recursive: true });
    mkdirSync(join(root, RESULTS), { recursive: true });
    // The real path, so a data folder reached through a symlink still compares equal below.
    this.root = realpathSync(root);
    this.uploadsDir = join(this.root, UPLOADS);
    this.jobsDir = join(this.root, JOBS);
    this.resultsDir = join(this.root, RESULTS);
  }

  createUploadStream(path: string): Writable {
    return createWriteStream(this.confine(path, [UPLOADS]), { flags: 'wx' });
  }

  async writeResult(jobId: string, result: ResultKind, data: string | Uint8Array): Promise<{ path: string; bytes: number }> {
    if (!JOB_ID.test(jobId)) throw new BlobPathError('a job id for blob storage is 1 to 128 letters, digits, _ or -');
    if (result.kind === 'partial' && !(Number.isInteger(result.revision) && result.revision >= 0 && result.revision < 1e9)) {
      throw new BlobPathError('a result revision is a non-negative integer');
    }
    const target = join(this.resultsDir, `${jobId}.${result.kind === 'final' ? 'result' : `partial-${result.revision}`}`);
    const temp = `${target}.tmp-${randomUUID()}`;
    const bytes = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.byteLength;
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    // rename() replaces atomically: a poll reading the previous file keeps its (unlinked) copy.
    await rename(temp, target);
    await syncPath(this.resultsDir);
    return { path: target, bytes };
  }

  readResult(path: string): Promise<Buffer> {
    return readFile(this.confine(path, [RESULTS]));
  }

  openResult(path: string): Readable {
    return createReadStream(this.confine(path, [RESULTS]));
  }

  createUploadPath(prefix: string): string {
    if (!PREFIX.test(prefix)) throw new BlobPathError('an upload prefix is 1 to 32 lowercase letters, digits or -');
    return join(this.uploadsDir, `${prefix}-${randomUUID()}.part`);
  }

  async moveToJobAudio(tempPath: string, jobId: string): Promise<string> {
    const source = this.confine(tempPath, [UPLOADS]);
    if (!JOB_ID.test(jobId)) throw new BlobPathError('a job id for blob storage is 1 to 128 letters, digits, _ or -');
    const target = join(this.jobsDir, `${jobId}.audio`);
    await syncPath(source);
    // link() fails when the target exists, where rename() would silently replace another job's audio.
    await link(source, target);
    await unlink(source);
    await syncPath(this.jobsDir);
    return target;
  }

  async delete(path: string): Promise<void> {
    await rm(this.confine(path, [UPLOADS, JOBS, RESULTS]), { force: true });
  }

  async exists(path: string): Promise<boolean> {
    try {
      return (await lstat(this.confine(path, [UPLOADS, JOBS, RESULTS]))).isFile();
    } catch (error) {
      if (error instanceof BlobPathError) throw error;
      return false;
    }
  }

  async sweepOrphans(isReferenced: (path: string) => Promise<boolean>, olderThanMs: number, now = new Date()): Promise<number> {
    // The age guard protects files in use: an upload still streaming (its mtime moves), and audio
    // moved into jobs/ a moment before its job row is committed.
    const cutoff = now.getTime() - olderThanMs;
    let removed = 0;
    for (const area of [UPLOADS, JOBS, RESULTS] as const) {
      const pattern = NAME_PATTERNS[area];
      const dir = join(this.root, area);
      for (const name of await readdir(dir)) {
        if (!pattern.test(name)) continue;
        const path = join(dir, name);
        const stats = await lstat(path).catch(() => null);
        if (!stats?.isFile() || stats.mtimeMs > cutoff) continue;
        if (area !== UPLOADS && (await isReferenced(path))) continue;
        await rm(path, { force: true });
        removed += 1;
      }
    }
    return removed;
  }

  /** The resolved path when it names a file directly inside one of `areas`; else BlobPathError. */
  private confine(path: string, areas: readonly Area[]): string {
    const resolved = resolve(path);
    const area = areas.find((candidate) => dirname(resolved) === join(this.root, candidate));
    const name = basename(resolved);
    if (!area || !NAME_PATTERNS[area].test(name)) {
      throw new BlobPathError(`not a path of this blob store: ${path}`);
    }
    return resolved;
  }
}

/** fsync of a file's data, or of a directory's entries (what makes a rename survive power loss). */
async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
