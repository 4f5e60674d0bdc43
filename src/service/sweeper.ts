// Periodic housekeeping: expired idempotency records, the job lifecycle's time-driven transitions
// (overdue uploads, expired results, ended tombstones), and blobs no request or job owns any more
// (uploads cut off by a crash, job audio whose row never committed, results of a lost race), and
// usage reservations that no longer count (their instance died, their job ended), and the scheduled
// revocations of rotated keys whose overlap ended, and sign-in credentials that can open nothing any
// more (expired-credentials.ts), and content written before sealing existed, sealed a batch at a time
// (plain-content-migration.ts).
import type { JobHousekeeping } from '../jobs/job-housekeeping.js';
import { type DueRevocationStores, type KeyRevocation, revokeDueKeys } from '../jobs/key-revocation.js';
import type { BlobStore } from '../store/blob-store.js';
import type { IdempotencyStore } from '../store/idempotency-store.js';
import type { JobStore } from '../store/job-store.js';
import type { UsageLedger } from '../store/usage-ledger.js';
import { deleteExpiredCredentials, type ExpiredCredentialStores } from './expired-credentials.js';
import type { PlainContentMigration } from './plain-content-migration.js';

/** Old enough that no upload can still be streaming into it and no job row can still be committing. */
const ORPHAN_AGE_MS = 60 * 60_000;
/** Often enough that results are deleted within a minute of their expiry. */
const INTERVAL_MS = 60_000;

export interface SweeperOptions {
  housekeeping?: JobHousekeeping;
  /** Whose dead reservations are deleted on each pass (decisions never count them; this keeps the table small). */
  ledger?: Pick<UsageLedger, 'deleteDeadReservations'>;
  clock?: () => Date;
  /** Where rotated keys whose revocation is due are revoked for good (their open work closed). */
  keyRevocations?: DueRevocationStores;
  /** Where used and expired invites, ended sessions, pending sign-ins and client secrets are deleted. */
  credentials?: ExpiredCredentialStores;
  /** Told of each key this process revoked on schedule (the service's audit line). */
  onKeyRevoked?: (revocation: KeyRevocation) => void;
  /**
   * At start no request is in flight, so every unreferenced blob is an orphan whatever its age:
   * the first pass removes them all (a crash leaves no audio behind past the restart).
   */
  sweepAllOrphansFirst?: boolean;
  /** Seals an existing installation's plain content, a bounded share each pass. */
  sealing?: Pick<PlainContentMigration, 'pass'>;
}

export function startSweeper(idempotency: IdempotencyStore, blobs: BlobStore, jobs: JobStore, options: SweeperOptions = {}) {
  const clock = options.clock ?? (() => new Date());
  let running: Promise<void> | null = null;
  let first = options.sweepAllOrphansFirst === true;
  let passes = 0;
  const sweepOnce = async () => {
    try {
      const now = clock();
      await idempotency.sweep(now);
      await options.housekeeping?.run(now.getTime());
      await options.ledger?.deleteDeadReservations();
      if (options.credentials) await deleteExpiredCredentials(options.credentials, now.getTime());
      if (options.keyRevocations) {
        for (const revocation of await revokeDueKeys(options.keyRevocations, now.getTime())) options.onKeyRevoked?.(revocation);
      }
      // Orphan age is judged on file times, which follow the wall clock, not the injected one.
      const owners = {
        isReferenced: (ref: string) => jobs.referencesBlob(ref),
        isAwaitingUpload: async (id: string) => (await jobs.getById(id))?.status === 'awaiting_upload',
      };
      await blobs.sweepOrphans(owners, first ? 0 : ORPHAN_AGE_MS);
      first = false;
      // Not on the pass the start waits for: a large backlog must not hold the start.
      if (passes++ > 0) await options.sealing?.pass();
    } catch {
      // Housekeeping must never take the server down; the next pass retries.
    }
  };
  const sweep = () => (running ??= sweepOnce().finally(() => (running = null)));
  const initial = sweep();
  const timer = setInterval(() => void sweep(), INTERVAL_MS);
  timer.unref();
  return {
    /** No further passes; resolves once a pass in progress has finished (it must not outlive the stores). */
    stop: async () => {
      clearInterval(timer);
      await running;
    },
    sweepNow: sweep,
    initial,
  };
}
