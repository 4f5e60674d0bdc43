// In-process change notices for jobs: what lets a long poll answer as soon as its job changes instead
// of re-reading the database on a timer. A notice carries no state; waiters re-read the store, which
// stays the only source of truth (a notice lost to a crash costs a waiter its timeout, nothing more).
// With JobNotices (src/store/job-notices.ts) the notices of every process sharing the database
// reach this one's waiters too: an API process's long poll wakes when a worker process finishes.
import { EventEmitter } from 'node:events';

import type { JobNotices } from '../store/job-notices.js';

export class JobEvents {
  private readonly emitter = new EventEmitter();
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly notices?: JobNotices) {
    // One listener per waiting poll: many clients may long-poll one job.
    this.emitter.setMaxListeners(0);
    this.unsubscribe =
      notices?.subscribe((notice) => {
        if (notice.kind === 'changed') this.emitter.emit(notice.jobId);
      }) ?? (() => {});
  }

  /** Call after a transition of `jobId` has been committed. */
  notify(jobId: string): void {
    // Here at once; other processes (and this one again, harmlessly) through the notices.
    this.emitter.emit(jobId);
    this.notices?.publish({ kind: 'changed', jobId });
  }

  /**
   * Resolves on the next notice for `jobId`, after `timeoutMs`, when `signal` aborts (the client
   * left) or when the server closes: true when a notice arrived.
   */
  waitForChange(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.closed || signal?.aborted || timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (changed: boolean) => {
        clearTimeout(timer);
        this.emitter.off(jobId, onChange);
        this.emitter.off(CLOSE, onClose);
        signal?.removeEventListener('abort', onClose);
        resolve(changed);
      };
      const onChange = () => finish(true);
      const onClose = () => finish(false);
      const timer = setTimeout(onClose, timeoutMs);
      this.emitter.on(jobId, onChange);
      this.emitter.on(CLOSE, onClose);
      signal?.addEventListener('abort', onClose, { once: true });
    });
  }

  /** Releases every waiter (server shutdown must not wait out 30-second polls). */
  close(): void {
    this.closed = true;
    this.unsubscribe();
    this.emitter.emit(CLOSE);
  }
}

const CLOSE = Symbol('close');
