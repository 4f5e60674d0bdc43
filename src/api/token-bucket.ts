// Token buckets keyed by name, in memory, against an injectable clock. A bucket holds up to
// `perMinute` tokens and refills continuously at perMinute/60 s, so a client may burst up to its
// per-minute allowance and then proceeds at the steady rate.
//
// State is per process: several server processes each enforce the limit on their own share.

export type BucketDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  capacity: number;
  updatedAt: number;
}

const MS_PER_MINUTE = 60_000;
// Refill arithmetic is in floating point: 59 s of a 1/min bucket plus 1 s must make a whole token.
const EPSILON = 1e-9;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private operationsSinceSweep = 0;

  /**
   * @param nowMs the clock, in milliseconds.
   * @param sweepEvery every this many operations, buckets that have refilled completely are
   *   forgotten (a full bucket is the same as no bucket), so many distinct callers cannot grow the
   *   map without bound.
   */
  constructor(
    private readonly nowMs: () => number,
    private readonly sweepEvery = 1024,
  ) {}

  /** Takes one token from `name`'s bucket if one is available. */
  take(name: string, perMinute: number): BucketDecision {
    return this.decide(name, perMinute, true);
  }

  /** Whether `name`'s bucket has a token, without taking it. */
  peek(name: string, perMinute: number): BucketDecision {
    return this.decide(name, perMinute, false);
  }

  /** How many buckets are held (for tests and diagnostics). */
  get size(): number {
    return this.buckets.size;
  }

  private decide(name: string, perMinute: number, take: boolean): BucketDecision {
    const now = this.nowMs();
    if (++this.operationsSinceSweep >= this.sweepEvery) this.sweep(now);
    // A zero or invalid rate allows nothing; the config loader is the place that refuses it.
    if (!(perMinute > 0)) return { allowed: false, retryAfterSeconds: 60 };

    const bucket = this.buckets.get(name) ?? { tokens: perMinute, capacity: perMinute, updatedAt: now };
    // A changed per-minute rate (the key was updated) applies at once, without a fresh burst.
    bucket.capacity = perMinute;
    bucket.tokens = this.refilled(bucket, now);
    // The clock may step backwards; time already credited is not credited twice.
    bucket.updatedAt = Math.max(bucket.updatedAt, now);

    if (bucket.tokens >= 1 - EPSILON) {
      if (take) {
        bucket.tokens = Math.max(0, bucket.tokens - 1);
        this.buckets.set(name, bucket);
      }
      return { allowed: true, remaining: Math.floor(bucket.tokens) };
    }
    this.buckets.set(name, bucket);
    const msUntilToken = Math.round(((1 - bucket.tokens) * MS_PER_MINUTE) / perMinute);
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(msUntilToken / 1000)) };
  }

  private refilled(bucket: Bucket, now: number): number {
    const elapsed = Math.max(0, now - bucket.updatedAt);
    return Math.min(bucket.capacity, bucket.tokens + (elapsed * bucket.capacity) / MS_PER_MINUTE);
  }

  private sweep(now: number): void {
    this.operationsSinceSweep = 0;
    for (const [name, bucket] of this.buckets) {
      if (this.refilled(bucket, now) >= bucket.capacity - EPSILON) this.buckets.delete(name);
    }
  }
}
