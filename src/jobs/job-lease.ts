// Keeps a claimed job's lease alive while a chunk runs: renews it every third of its length, and
// aborts the chunk's work the moment a renewal finds the lease gone (another worker reclaimed it
// after this one stalled), so a worker that lost its job stops instead of racing the new owner.
import type { JobStore } from '../store/job-store.js';

export class JobLease {
  private readonly controller = new AbortController();
  /** Removes the listener on the runner's long-lived signal when the lease ends (one per chunk otherwise). */
  private readonly detach = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly jobs: JobStore,
    readonly jobId: string,
    readonly workerId: string,
    leaseMs: number,
    clock: () => Date,
    /** Aborts the chunk too (server shutdown). */
    outer: AbortSignal,
  ) {
    let renewing = false;
    this.timer = setInterval(
      () => {
        // A renewal still waiting on the database is not doubled up; the next tick tries again.
        if (renewing) return;
        renewing = true;
        void jobs
          .heartbeat(jobId, workerId, clock().getTime(), leaseMs)
          // A failed renewal is a lost lease: better to stop than to run unowned.
          .catch(() => false)
          .then((held) => {
            renewing = false;
            if (!held) this.controller.abort(new Error('lease lost'));
          });
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    this.timer.unref();
    if (outer.aborted) this.controller.abort(outer.reason);
    else outer.addEventListener('abort', () => this.controller.abort(outer.reason), { once: true, signal: this.detach.signal });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  stop(): void {
    clearInterval(this.timer);
    this.detach.abort();
  }
}
