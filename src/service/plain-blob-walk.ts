// The blobs' share of the background sealing (plain-content-migration.ts): a walk over the jobs' blobs
// (PlainBlobSealing) a bounded number of batches a pass, from where the last pass stopped. A walk that
// finds nothing left plain is this process's last (new blobs are sealed as they are written); one that
// left some (jobs a worker held) is followed by another. A restart walks again: reading the first
// bytes of each blob, sealing nothing twice.
import type { PlainBlobSealing } from '../store/plain-content-sealing.js';

/** Jobs per batch, and batches per pass (a pass a minute). */
const BATCH = 100;
const BATCHES_PER_PASS = 20;

export class PlainBlobWalk {
  /** Where the walk goes on; null: at the start of a walk. */
  private cursor: string | null = null;
  /** Plain blobs the walk in progress left. */
  private leftInWalk = 0;
  /** What the last whole walk left; null before one ended. */
  private leftByLastWalk: number | null = null;
  private sealedTotal = 0;

  constructor(private readonly sealing: PlainBlobSealing) {}

  /** One pass's share of the walk; returns the plain blobs known or possibly left (see left()). */
  async step(): Promise<number> {
    if (this.leftByLastWalk === 0) return 0;
    for (let batch = 0; batch < BATCHES_PER_PASS; batch++) {
      const { next, sealed, left } = await this.sealing.sealBatch(this.cursor, BATCH);
      this.sealedTotal += sealed;
      this.leftInWalk += left;
      this.cursor = next;
      if (next === null) {
        this.leftByLastWalk = this.leftInWalk;
        this.leftInWalk = 0;
        break;
      }
    }
    return this.left();
  }

  /**
   * Plain blobs left: what the last whole walk left; before one ended, an upper bound (what this walk
   * left, and every blob of the jobs it has not looked at yet), which falls to the true count as it goes.
   */
  private async left(): Promise<number> {
    if (this.leftByLastWalk !== null) return this.leftByLastWalk;
    return this.leftInWalk + (await this.sealing.blobsAfter(this.cursor));
  }

  /** Blobs this process has sealed since it started. */
  sealed(): number {
    return this.sealedTotal;
  }
}
