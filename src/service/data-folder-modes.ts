// What `serve` says at start about the data folder's modes. The service creates everything in it
// owner-only (store/private-mode.ts), but a folder made by hand or by an older version, or a file
// left from then, keeps its own mode: recordings and transcripts readable by every local user. The
// start is never refused for it (the operator may mean it, a group-readable backup say): it is said.
import { lstat, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

import type { FastifyBaseLogger } from 'fastify';

export const DATA_FOLDER_WARNING = 'data folder readable by others';

export interface WiderModes {
  /** How many files and folders (the data folder itself included) let the group or others in. */
  count: number;
  /** One of the widest of them (most group and other bits), relative to the data folder, and its mode as octal. */
  widest: { path: string; mode: string } | null;
}

/** The entries under `dataDir` (symlinks not followed: their own mode means nothing) that group or others may use. */
export async function widerThanPrivate(dataDir: string): Promise<WiderModes> {
  let count = 0;
  let widest: { path: string; mode: number } | null = null;
  const visit = async (path: string): Promise<void> => {
    // An entry removed meanwhile (an upload finished, a result swept) is no finding.
    const stats = await lstat(path).catch(() => null);
    if (!stats || stats.isSymbolicLink()) return;
    const open = stats.mode & 0o077;
    if (open !== 0) {
      count += 1;
      if (!widest || bits(open) > bits(widest.mode & 0o077)) widest = { path, mode: stats.mode & 0o777 };
    }
    if (stats.isDirectory()) await Promise.all((await readdir(path).catch(() => [])).map((name) => visit(join(path, name))));
  };
  await visit(dataDir);
  const found = widest as { path: string; mode: number } | null;
  return { count, widest: found && { path: relative(dataDir, found.path) || '.', mode: `0${found.mode.toString(8).padStart(3, '0')}` } };
}

function bits(mode: number): number {
  let n = 0;
  for (let rest = mode; rest !== 0; rest >>= 1) n += rest & 1;
  return n;
}

/** Logs one warning when anything under `dataDir` is wider than 0600/0700, naming a count, the widest and the fix. */
export async function warnOfWiderModes(dataDir: string, log: Pick<FastifyBaseLogger, 'warn'>): Promise<void> {
  const { count, widest } = await widerThanPrivate(dataDir);
  if (count === 0) return;
  log.warn({ dataDir, widerThanPrivate: count, widest: widest?.path, widestMode: widest?.mode, fix: `chmod -R go= '${dataDir}'` }, DATA_FOLDER_WARNING);
}
