// The background sealing of an existing installation's plain content (plain-content-sealing.ts), run
// by the sweeper's passes on the processes that do housekeeping: a bounded number of batches a pass,
// so a large backlog is sealed over some minutes without holding the database, then a count of what
// is left for /metrics. Once nothing is left, later passes only look again now and then: new content
// is sealed as it is written, so nothing plain comes back except from an older process still running.
// Blobs (job audio, results) are walked through their jobs' rows (plain-blob-walk.ts), counted as
// `blobs` beside the columns.
import type { PlainContentSealing, SealedColumn } from '../store/plain-content-sealing.js';
import type { PlainBlobWalk } from './plain-blob-walk.js';

/** Values sealed per column per batch, and batches per pass (a pass a minute: up to 20,000 a minute). */
const BATCH = 250;
const BATCHES_PER_PASS = 20;
/** With nothing left, passes between looks (older processes still writing plain during an upgrade). */
const IDLE_PASSES = 10;

/** Plain values left per column, and plain blobs as `blobs` where blobs are walked. */
export type PlainLeft = Record<SealedColumn, number> & { blobs?: number };

export class PlainContentMigration {
  private left: PlainLeft | null = null;
  private sealedTotal = 0;
  private idle = 0;

  constructor(
    private readonly sealing: PlainContentSealing,
    /** The blob store's share; null where only the database is migrated (a process without blobs, tests). */
    private readonly blobs: PlainBlobWalk | null = null,
  ) {}

  /** One pass: batches until a batch seals nothing or the pass's bound; then what is left. */
  async pass(): Promise<void> {
    if (this.left !== null && Object.values(this.left).every((n) => n === 0) && ++this.idle % IDLE_PASSES !== 0) return;
    for (let batch = 0; batch < BATCHES_PER_PASS; batch++) {
      const sealed = await this.sealing.sealBatch(BATCH);
      this.sealedTotal += sealed;
      if (sealed === 0) break;
    }
    const columns = await this.sealing.plainCounts();
    this.left = this.blobs === null ? columns : { ...columns, blobs: await this.blobs.step() };
  }

  /** Values (and blobs) still plain, as of the last pass (null before the first). */
  plainLeft(): PlainLeft | null {
    return this.left;
  }

  /** Values and blobs this process has sealed since it started. */
  sealed(): number {
    return this.sealedTotal + (this.blobs?.sealed() ?? 0);
  }
}
