// Request bodies while they stream in: `<prefix>-<uuid>.part` files in one local folder, whatever
// store keeps the durable blobs (LocalBlobStore: `<root>/uploads`, on the same file system as job
// audio so that keeping one is a rename; S3BlobStore: its spool folder, uploaded from there). The
// inline route transcribes a body in-process, so it is always a local file.
import { randomUUID } from 'node:crypto';
import { createWriteStream, realpathSync } from 'node:fs';
import { access, constants, lstat, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';

import { BlobPathError } from './blob-store.js';
import { requireFreeSpace } from './disk-space.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-mode.js';

const PREFIX = /^[a-z0-9-]{1,32}$/;
/** The names the spool hands out; anything else in its folder is not ours to delete or move. */
const UPLOAD_NAME = /^[a-z0-9-]{1,32}-[0-9a-f-]{36}\.part$/;

export class UploadSpool {
  /** The folder's real path, so a data folder reached through a symlink still compares equal. */
  readonly dir: string;

  constructor(dir: string) {
    makePrivateDir(dir);
    this.dir = realpathSync(dir);
  }

  createPath(prefix: string): string {
    if (!PREFIX.test(prefix)) throw new BlobPathError('an upload prefix is 1 to 32 lowercase letters, digits or -');
    return join(this.dir, `${prefix}-${randomUUID()}.part`);
  }

  createStream(path: string): Writable {
    return createWriteStream(this.confine(path), { flags: 'wx', mode: PRIVATE_FILE_MODE });
  }

  /** The resolved path when `path` names a file this spool hands out, else null. */
  owned(path: string): string | null {
    const resolved = resolve(path);
    return dirname(resolved) === this.dir && UPLOAD_NAME.test(basename(resolved)) ? resolved : null;
  }

  confine(path: string): string {
    const resolved = this.owned(path);
    if (resolved === null) throw new BlobPathError(`not a path of this blob store: ${path}`);
    return resolved;
  }

  /** Removes spooled bodies last written before `cutoffMs` (a crash cut their request off). */
  async sweep(cutoffMs: number): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.dir)) {
      if (!UPLOAD_NAME.test(name)) continue;
      const path = join(this.dir, name);
      // The age guard protects a body still streaming in: its mtime moves with every write.
      const stats = await lstat(path).catch(() => null);
      if (!stats?.isFile() || stats.mtimeMs > cutoffMs) continue;
      await rm(path, { force: true });
      removed += 1;
    }
    return removed;
  }

  /** Throws (with the fs error) unless the folder is there, writable, and its file system not (nearly) full. */
  async check(): Promise<void> {
    await access(this.dir, constants.R_OK | constants.W_OK | constants.X_OK);
    if (!(await lstat(this.dir)).isDirectory()) throw new Error(`${this.dir} is not a folder`);
    await requireFreeSpace(this.dir);
  }
}
