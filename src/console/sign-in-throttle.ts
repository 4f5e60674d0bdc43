// Sign-in attempts per client address, in this process: at most `perMinute` in any minute (a fixed
// window per address). With several console processes each counts its own; the per-account lockout
// (in the database) is what holds across them.

export class SignInThrottle {
  private readonly windows = new Map<string, { startMs: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly clock: () => number,
  ) {}

  /** Counts an attempt from `address`: 0 when allowed, else how long (ms) until the next one is. */
  take(address: string): number {
    const now = this.clock();
    this.forgetOld(now);
    const window = this.windows.get(address);
    if (!window || now - window.startMs >= 60_000) {
      this.windows.set(address, { startMs: now, count: 1 });
      return 0;
    }
    if (window.count >= this.perMinute) return window.startMs + 60_000 - now;
    window.count++;
    return 0;
  }

  private forgetOld(now: number): void {
    if (this.windows.size < 1_000) return;
    for (const [address, window] of this.windows) if (now - window.startMs >= 60_000) this.windows.delete(address);
  }
}
