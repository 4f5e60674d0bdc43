// Peak resident memory over one stretch of work, by sampling. The kernel's own peak (VmHWM, maxRSS)
// counts from the process's start, so after a first pool shape it would hide every later one's.
// Worker threads share the process, so the samples include every worker's decoding state.
export class PeakRssSampler {
  private peak = process.memoryUsage.rss();
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs = 50) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** Also called at the moments that matter (after loading, after the calls), between timer ticks. */
  sample(): void {
    this.peak = Math.max(this.peak, process.memoryUsage.rss());
  }

  /** Stops sampling; the peak in bytes. */
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}
