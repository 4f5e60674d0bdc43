// Where accepted jobs are handed for processing. The HTTP routes only enqueue; the worker loop that
// claims, runs and finishes jobs implements this with the jobs feature.

export interface JobQueue {
  /** Called after the job row and its audio are durable. Must not throw for a valid job id. */
  enqueue(jobId: string): void;
}

/** Until a worker loop exists: accepted jobs stay `accepted` (durable, visible to operators). */
export class HoldingJobQueue implements JobQueue {
  readonly held: string[] = [];
  enqueue(jobId: string): void {
    this.held.push(jobId);
  }
}
