// Periodic housekeeping: expired idempotency records, and audio no request or job owns any more
// (uploads cut off by a crash, job audio whose row never committed).
import type { LocalBlobStore } from '../store/local-blob-store.js';
import type { SqliteIdempotencyStore } from '../store/sqlite/sqlite-idempotency-store.js';
import type { SqliteJobStore } from '../store/sqlite/sqlite-job-store.js';

/** Old enough that no upload can still be streaming into it and no job row can still be committing. */
const ORPHAN_AGE_MS = 60 * 60_000;
const INTERVAL_MS = 10 * 60_000;

export function startSweeper(idempotency: SqliteIdempotencyStore, blobs: LocalBlobStore, jobs: SqliteJobStore) {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      idempotency.sweep();
      await blobs.sweepOrphans((path) => jobs.referencesAudio(path), ORPHAN_AGE_MS);
    } catch {
      // Housekeeping must never take the server down; the next pass retries.
    } finally {
      running = false;
    }
  };
  void sweep();
  const timer = setInterval(() => void sweep(), INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), sweepNow: sweep };
}
