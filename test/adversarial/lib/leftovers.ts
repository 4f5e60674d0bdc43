// "Nothing is left on disk": after the requests of a run have finished, the data folder holds only
// what it held before, the SQLite files, and blobs that a job row still needs — audio of a job
// that has not ended, results the job keeps. Upload temp files, audio of ended jobs and files no
// row names are leftovers. (Read-only SQL on the jobs table: the job store has no listing.)
import { basename } from 'node:path';

import Database from 'better-sqlite3';

import { databasePath } from '../../../src/store/sqlite/database.js';

const SQLITE_FILE = /\.db(?:-wal|-shm|-journal)?$/;
const UNFINISHED = new Set(['awaiting_upload', 'accepted', 'running']);

interface JobPaths {
  status: string;
  audio_path: string | null;
  result_path: string | null;
  partial_path: string | null;
}

/** Files in `after` that are neither in `before` nor legitimately kept; empty when clean. */
export function leftoverFiles(dataDir: string, before: readonly string[], after: readonly string[]): string[] {
  const db = new Database(databasePath(dataDir), { readonly: true, fileMustExist: true });
  let rows: JobPaths[];
  try {
    rows = db.prepare('SELECT status, audio_path, result_path, partial_path FROM jobs').all() as JobPaths[];
  } finally {
    db.close();
  }
  const liveAudio = new Set(rows.filter((r) => UNFINISHED.has(r.status) && r.audio_path).map((r) => basename(r.audio_path!)));
  const results = new Set(
    rows
      .flatMap((r) => [r.result_path, r.status === 'running' ? r.partial_path : null])
      .filter((p) => p !== null)
      .map((p) => basename(p)),
  );
  const existed = new Set(before);
  return after.filter((file) => {
    if (existed.has(file) || SQLITE_FILE.test(file)) return false;
    const [area, folder, name] = file.split('/');
    if (area !== 'blobs' || name === undefined) return true;
    if (folder === 'jobs') return !liveAudio.has(name);
    if (folder === 'results') return !results.has(name);
    return true;
  });
}
