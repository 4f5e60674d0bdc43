// The time a process judges leases, instance heartbeats and expiries by, on the database's clock.
// Processes of a scaled-out deployment run on machines whose clocks differ; every lease and heartbeat
// is a time one process writes and another compares with its own "now". A worker whose clock ran two
// minutes ahead saw every other lease and heartbeat as expired: it declared the other processes dead
// and took their running jobs, so their chunks ran twice. Reading the database server's clock on
// every query would add a round trip to each; instead the offset between this process's clock and the
// database's is measured at start and again every ALIGN_EVERY_MS, and "now" is the process's clock
// plus that offset: within a few milliseconds (half a round trip) of the database's, for every process.
// SQLite's only process shares the database's clock and needs none of this.

/** How often the offset is measured again (clocks drift, and an NTP step moves them at once). */
export const ALIGN_EVERY_MS = 30_000;
/** An offset beyond this is worth an operator's look (NTP not running, say); the service works on either way. */
const NOTABLE_OFFSET_MS = 1_000;

export class DatabaseClock {
  private offsetMs = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly databaseTimeMs: () => Promise<number>,
    private readonly log: { warn(details: object, message: string): void },
    private readonly local: () => number = Date.now,
  ) {}

  /** Measures the offset once (the database must answer: the process cannot start without it), then keeps it fresh. */
  async start(): Promise<void> {
    await this.align();
    this.timer = setInterval(() => void this.align().catch(() => {}), ALIGN_EVERY_MS);
    // Never keeps the process alive on its own.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Epoch milliseconds on the database's clock. */
  now(): number {
    return this.local() + this.offsetMs;
  }

  /** The database's clock minus this process's, as last measured. */
  get offset(): number {
    return this.offsetMs;
  }

  /** Measures the offset: the database's reading against the middle of the round trip that fetched it. */
  async align(): Promise<number> {
    const before = this.local();
    const database = await this.databaseTimeMs();
    const after = this.local();
    // Whole milliseconds: the times it makes are stored in integer columns.
    const offset = Math.round(database - (before + after) / 2);
    if (Math.abs(offset) > NOTABLE_OFFSET_MS && Math.abs(offset - this.offsetMs) > NOTABLE_OFFSET_MS) {
      this.log.warn(
        { offsetMs: Math.round(offset) },
        "this process's clock differs from the database server's; leases, heartbeats and expiries use the database's",
      );
    }
    this.offsetMs = offset;
    return offset;
  }
}
