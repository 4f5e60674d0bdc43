// GET /v1/jobs/{id}: the job as it is now, or, with a wait, as soon as its status changes or a new
// provisional revision is published (else when the wait runs out); a finished job is answered at
// once. A succeeded job's result comes inline when asked for and small enough.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { JobAuditLog } from '../jobs/job-audit.js';
import type { JobEvents } from '../jobs/job-events.js';
import type { JobRecord } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import { findOwnJob, type OwnJobDeps } from './find-own-job.js';
import { resultExpired } from './job-deadlines.js';
import { logResultRead } from './read-job-outputs.js';
import { KEY_RECHECK_INTERVAL_MS, requireActiveKey } from './require-active-key.js';

/** Results up to this size go inline with `include_result=true` (the contract's limit). */
export const INLINE_RESULT_LIMIT_BYTES = 4 * 1024 * 1024;

export interface JobPoll {
  key: ApiKeyRecord;
  jobId: string;
  /** How long to wait for a change; 0 answers at once. */
  waitSeconds: number;
  includeResult: boolean;
  /** Aborts `abort` when the client leaves, until the returned function is called. */
  watchClientLeaving(abort: AbortController): () => void;
  /** Where the job audit lines of the request go. */
  log: JobAuditLog;
}

export interface PollJobDeps extends OwnJobDeps {
  blobs: Pick<TenantBlobs, 'forTenant'>;
  events: Pick<JobEvents, 'waitForChange'>;
  keys: Pick<KeyStore, 'get'>;
}

/** A succeeded job's result as the poll carries it: its content, or word that it is too large to. */
export type InlineResult = { content: Buffer } | { tooLarge: true };

export interface PolledJob {
  job: JobRecord;
  /** The time the job was judged at (its result's expiry). */
  nowMs: number;
  inline: InlineResult | null;
}

export async function pollJob(poll: JobPoll, deps: PollJobDeps): Promise<PolledJob> {
  let job = await findOwnJob(deps, poll.key, poll.jobId);
  if (poll.waitSeconds > 0 && job.status !== 'succeeded' && job.status !== 'failed') job = await waitForChange(poll, job, deps);
  const nowMs = deps.clock().getTime();
  let inline: InlineResult | null = null;
  if (poll.includeResult && job.status === 'succeeded' && !resultExpired(job, nowMs)) {
    inline =
      (job.resultBytes ?? Infinity) <= INLINE_RESULT_LIMIT_BYTES
        ? { content: await deps.blobs.forTenant(job.tenant).readResult(job.resultPath!) }
        : { tooLarge: true };
    if ('content' in inline) logResultRead(poll.log, poll.key, job.id, 'poll');
  }
  return { job, nowMs, inline };
}

/** The job once its status or provisional revision changed, the wait ran out or the client left. */
async function waitForChange(poll: JobPoll, job: JobRecord, deps: PollJobDeps): Promise<JobRecord> {
  const left = new AbortController();
  const stopWatching = poll.watchClientLeaving(left);
  try {
    const deadline = Date.now() + poll.waitSeconds * 1000;
    const seen = `${job.status}/${job.resultRevision}`;
    while (!left.signal.aborted) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      // Woken at least every KEY_RECHECK_INTERVAL_MS: a revocation (made by the CLI in another
      // process, which no in-process notice reports) ends the wait with KeyRevoked, and another change
      // made there is seen without waiting the wait out.
      await deps.events.waitForChange(job.id, Math.min(remaining, KEY_RECHECK_INTERVAL_MS), left.signal);
      await requireActiveKey(deps.keys, poll.key.id);
      job = await findOwnJob(deps, poll.key, poll.jobId);
      if (`${job.status}/${job.resultRevision}` !== seen) break;
    }
  } finally {
    stopWatching();
  }
  return job;
}
