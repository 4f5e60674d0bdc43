// Watches a request body as it arrives: no byte for idleTimeoutMs -> 408 upload_timeout; after the
// grace period, an average rate below minBytesPerSecond -> 408 upload_too_slow. Slow-loris uploads
// would otherwise hold a connection and a temp file indefinitely.
import type { IncomingMessage } from 'node:http';

import type { ApiError } from '../api-error.js';
import { API_REFUSALS } from '../api-refusals.js';

export interface UploadLimits {
  idleTimeoutMs: number;
  minBytesPerSecond: number;
  minRateGraceMs: number;
}

export class UploadMonitor {
  private readonly startedAt = Date.now();
  private readonly startBytes: number;
  private lastBytes: number;
  private lastDataAt = Date.now();
  private timer: NodeJS.Timeout;
  private failure: ApiError | null = null;

  constructor(
    private readonly raw: IncomingMessage,
    private readonly limits: UploadLimits,
    private readonly onFailure: (error: ApiError) => void,
  ) {
    // Polling the socket's byte counter observes the body without consuming it (a 'data' listener
    // would switch the stream to flowing mode under the multipart parser).
    this.startBytes = this.lastBytes = raw.socket?.bytesRead ?? 0;
    const tick = Math.max(50, Math.min(1000, Math.floor(limits.idleTimeoutMs / 4)));
    this.timer = setInterval(() => this.check(), tick);
    this.timer.unref();
  }

  get error(): ApiError | null {
    return this.failure;
  }

  private check(): void {
    if (this.raw.complete) return this.stop();
    const now = Date.now();
    const read = this.raw.socket?.bytesRead ?? this.lastBytes;
    if (read !== this.lastBytes) {
      this.lastBytes = read;
      this.lastDataAt = now;
    }
    if (now - this.lastDataAt >= this.limits.idleTimeoutMs) {
      this.fail(API_REFUSALS.uploadStalled());
      return;
    }
    const elapsed = now - this.startedAt;
    if (elapsed >= this.limits.minRateGraceMs && ((read - this.startBytes) * 1000) / elapsed < this.limits.minBytesPerSecond) {
      this.fail(API_REFUSALS.uploadTooSlow());
    }
  }

  private fail(error: ApiError): void {
    this.failure = error;
    this.stop();
    this.onFailure(error);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
