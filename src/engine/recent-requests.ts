// Which requests an engine has served lately, across its lanes (whisper and VAD). A call is lent the
// idle workers' threads only when its request has had the engine to itself for a while
// (work-scheduler.ts): then more work is unlikely to arrive during the call. Where another request is
// at work (a second realtime session between partials, a client whose next request is in its VAD), a
// lent call would make that request's next call wait for it; unlent, both compute side by side.
// Measured (`bench realtime`, 2 cores): lending on every quiet instant took one session's turn_final
// p95 from 910 to 474 ms but four sessions' from 1,902 to 2,200 ms.

/**
 * How long a request counts as at work after a call of it was scheduled or ended: a little more than a
 * streaming realtime session's step (it analyses every 0.25 s of audio, realtime/session-limits.ts), so such a
 * session is always at work, and little enough that one client sending recordings one after another is
 * not in its own way (its previous request ended before the next one's upload, VAD and first window).
 */
export const REQUEST_QUIET_MS = 300;

export class RecentRequests {
  private readonly lastSeen = new Map<string, number>();

  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** A call of `request` was scheduled, or ended, now. */
  seen(request: string): void {
    this.lastSeen.set(request, this.clock());
  }

  /** Whether a request other than `request` had a call scheduled or ended within REQUEST_QUIET_MS. */
  othersAtWork(request: string): boolean {
    const since = this.clock() - REQUEST_QUIET_MS;
    let others = false;
    for (const [seen, at] of this.lastSeen) {
      if (at < since) this.lastSeen.delete(seen);
      else if (seen !== request) others = true;
    }
    return others;
  }
}
