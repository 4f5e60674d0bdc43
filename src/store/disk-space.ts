// Whether a local folder's file system is (nearly) full. The readiness probe says not ready below
// MIN_FREE_BYTES: a request that spools its body there would fail part-way, and a job's results could
// not be kept, so a load balancer should send work elsewhere until an operator frees space. The
// failures themselves (ENOSPC, SQLITE_FULL) are classified here too, for the job runner: a full disk
// is an outage that ends when space is freed, not a fault of the job's audio.
import { statfs } from 'node:fs/promises';

/** Below this much free space the file system counts as full: a little more than one large upload's headroom. */
export const MIN_FREE_BYTES = 64 * 1024 * 1024;

/** The bytes an unprivileged writer may still use on `dir`'s file system. */
export async function freeBytes(dir: string): Promise<number> {
  const stats = await statfs(dir);
  return stats.bavail * stats.bsize;
}

/** Throws, saying how much is left, when `dir`'s file system has less than MIN_FREE_BYTES free. */
export async function requireFreeSpace(dir: string): Promise<void> {
  const free = await freeBytes(dir);
  if (free < MIN_FREE_BYTES) {
    throw new Error(`the file system of ${dir} is nearly full: ${Math.floor(free / 1024 / 1024)} MiB free, ${MIN_FREE_BYTES / 1024 / 1024} MiB needed`);
  }
}

/** A write that failed because the disk, a quota or the SQLite database file ran out of space. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'ENOSPC' || code === 'EDQUOT' || /^SQLITE_FULL(?:_|$)/.test(code));
}
