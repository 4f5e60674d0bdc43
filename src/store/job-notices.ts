// Wake-ups between processes that share a database: "job X changed" (long polls answer at once) and
// "work is waiting" (idle workers claim at once). A notice carries no state, and losing one costs
// only latency: long polls re-read the store at least every second and idle workers every two, so
// the database stays the only source of truth. SQLite serves one process, so its notices stay in
// process; PostgreSQL carries them with LISTEN/NOTIFY to every process (pg-job-notices.ts).
import { EventEmitter } from 'node:events';

export type JobNotice = { kind: 'changed'; jobId: string } | { kind: 'queued' };

export interface JobNotices {
  /** Tells every process (this one included); never throws: a notice that cannot be sent is dropped. */
  publish(notice: JobNotice): void;
  /** Called for each notice published by any process, this one included. */
  subscribe(listener: (notice: JobNotice) => void): () => void;
  close(): Promise<void>;
}

/** Notices within this process only: the SQLite deployment, where one process is the server. */
export class InProcessJobNotices implements JobNotices {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  publish(notice: JobNotice): void {
    // Delivered on a later tick, like a notice coming back from a database: a publisher never runs
    // its listeners inside its own transition.
    queueMicrotask(() => this.emitter.emit('notice', notice));
  }

  subscribe(listener: (notice: JobNotice) => void): () => void {
    this.emitter.on('notice', listener);
    return () => this.emitter.off('notice', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}
