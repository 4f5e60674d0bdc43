// BlobStore on local disk. Layout under the root (the service uses `<dataDir>/blobs`):
//   uploads/<prefix>-<uuid>.part   request bodies being received (upload-spool.ts)
//   jobs/<jobId>.audio             durable job audio
//   results/<jobId>.partial-<n>    provisional result revision n of a running job
//   results/<jobId>.result         final result
//   results/<jobId>.result-<n>     final result revision n (a result replaced after the job ended)
//   results/<jobId>.redacted-audio a job's redacted copy of its audio (a WAV file)
// All folders are on one file system, so moving an upload into jobs/ is a rename: atomic, no copy.
// Folders are 0700 and files 0600 (private-mode.ts): job audio is an upload's file, linked.
// Every path taken from a caller must name a file directly inside one of the folders.
import { randomUUID } from 'node:crypto';
import { createReadStream, realpathSync } from 'node:fs';
import { access, constants, link, lstat, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';

import { checkByteRange, JOB_AUDIO_NAME, jobAudioName, RESULT_NAME, resultName } from './blob-names.js';
import { type AudioSource, type BlobOwners, BlobPathError, type BlobStore, BlobStoreUnavailableError, type ResultKind } from './blob-store.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-mode.js';
import { readFileRange } from './read-file-range.js';
import { UploadSpool } from './upload-spool.js';

const UPLOADS = 'uploads';
const JOBS = 'jobs';
const RESULTS = 'results';
// Results, and the temporary files they are written through (swept like uploads when a crash strands one).
const RESULT_FILE_NAME = new RegExp(`${RESULT_NAME.source.slice(0, -1)}(?:\\.tmp-[0-9a-f-]{36})?$`);

/** The blob folder inside a data folder; the server and the admin CLI (key revocation) both use it. */
export function localBlobRoot(dataDir: string): string {
  return join(dataDir, 'blobs');
}

type Area = typeof UPLOADS | typeof JOBS | typeof RESULTS;
type DurableArea = typeof JOBS | typeof RESULTS;
const NAME_PATTERNS: Record<DurableArea, RegExp> = { [JOBS]: JOB_AUDIO_NAME, [RESULTS]: RESULT_FILE_NAME };

export class LocalBlobStore implements BlobStore {
  readonly root: string;
  private readonly spool: UploadSpool;
  private readonly jobsDir: string;
  private readonly resultsDir: string;

  constructor(root: string) {
    makePrivateDir(join(root, JOBS));
    makePrivateDir(join(root, RESULTS));
    // The real path, so a data folder reached through a symlink still compares equal below.
    this.root = realpathSync(root);
    this.spool = new UploadSpool(join(this.root, UPLOADS));
    this.jobsDir = join(this.root, JOBS);
    this.resultsDir = join(this.root, RESULTS);
  }

  createUploadPath(prefix: string): string {
    return this.spool.createPath(prefix);
  }

  createUploadStream(path: string): Writable {
    return this.spool.createStream(path);
  }

  async moveToJobAudio(tempPath: string, jobId: string): Promise<string> {
    const source = this.spool.confine(tempPath);
    const target = join(this.jobsDir, jobAudioName(jobId));
    await syncPath(source);
    // link() fails when the target exists, where rename() would silently replace another job's audio.
    await link(source, target);
    await unlink(source);
    await syncPath(this.jobsDir);
    return target;
  }

  async writeResult(jobId: string, result: ResultKind, data: string | Uint8Array): Promise<{ path: string; bytes: number }> {
    const target = join(this.resultsDir, resultName(jobId, result));
    const temp = `${target}.tmp-${randomUUID()}`;
    const bytes = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.byteLength;
    const handle = await open(temp, 'wx', PRIVATE_FILE_MODE);
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

  async moveToResult(tempPath: string, jobId: string, result: ResultKind): Promise<{ path: string; bytes: number }> {
    const source = this.spool.confine(tempPath);
    const target = join(this.resultsDir, resultName(jobId, result));
    const { size } = await stat(source);
    await syncPath(source);
    // One file system: rename() replaces atomically, as writeResult's does.
    await rename(source, target);
    await syncPath(this.resultsDir);
    return { path: target, bytes: size };
  }

  readResult(path: string): Promise<Buffer> {
    return readFile(this.confine(path, [RESULTS]));
  }

  openResult(path: string): Readable {
    return createReadStream(this.confine(path, [RESULTS]));
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

  async size(path: string): Promise<number> {
    return (await stat(this.confine(path, [UPLOADS, JOBS, RESULTS]))).size;
  }

  async audioSource(path: string): Promise<AudioSource> {
    return { kind: 'file', path: this.confine(path, [JOBS]) };
  }

  async readRange(path: string, offset: number, length: number): Promise<Buffer> {
    const file = this.confine(path, [UPLOADS, JOBS, RESULTS]);
    checkByteRange(offset, length);
    return readFileRange(file, offset, length);
  }

  async ping(): Promise<void> {
    try {
      await this.spool.check();
      for (const dir of [this.jobsDir, this.resultsDir]) {
        await access(dir, constants.R_OK | constants.W_OK | constants.X_OK);
        if (!(await lstat(dir)).isDirectory()) throw new Error(`${dir} is not a folder`);
      }
    } catch (error) {
      throw new BlobStoreUnavailableError('the blob folders are missing, not writable or full', { cause: error });
    }
  }

  sweepSpool(): Promise<number> {
    return this.spool.sweep(Number.POSITIVE_INFINITY);
  }

  async sweepOrphans(owners: BlobOwners, olderThanMs: number, now = new Date()): Promise<number> {
    // The age guard protects files in use: an upload still streaming (its mtime moves), and audio
    // moved into jobs/ a moment before its job row is committed.
    const cutoff = now.getTime() - olderThanMs;
    let removed = await this.spool.sweep(cutoff);
    for (const area of [JOBS, RESULTS] as const) {
      const dir = join(this.root, area);
      for (const name of await readdir(dir)) {
        if (!NAME_PATTERNS[area].test(name)) continue;
        const path = join(dir, name);
        const stats = await lstat(path).catch(() => null);
        if (!stats?.isFile() || stats.mtimeMs > cutoff) continue;
        if (await owners.isReferenced(path)) continue;
        await rm(path, { force: true });
        removed += 1;
      }
    }
    return removed;
  }

  /** The resolved path when it names a file directly inside one of `areas`; else BlobPathError. */
  private confine(path: string, areas: readonly Area[]): string {
    const resolved = resolve(path);
    if (areas.includes(UPLOADS) && this.spool.owned(resolved) !== null) return resolved;
    const area = areas.find((candidate): candidate is DurableArea => candidate !== UPLOADS && dirname(resolved) === join(this.root, candidate));
    if (!area || !NAME_PATTERNS[area].test(basename(resolved))) {
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
