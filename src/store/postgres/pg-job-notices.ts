// JobNotices over PostgreSQL's LISTEN/NOTIFY: one dedicated connection per process listens on one
// channel; publishing is a pg_notify through the pool. NOTIFY is delivered only once the publishing
// transaction commits, and the publishers here notify after their transition committed, so a
// listener always finds the change when it re-reads.
//
// The listening connection is not from the pool (a pooled client would be handed back and lose its
// LISTEN). When it drops (the server restarted) it is reopened with a growing pause; notices sent
// meanwhile are lost, which costs only latency (see job-notices.ts), and a `queued` notice is raised
// locally after reconnecting so idle workers look for work they may have missed.
import { EventEmitter } from 'node:events';

import pg from 'pg';

import { JOB_ID } from '../blob-names.js';
import type { JobNotice, JobNotices } from '../job-notices.js';
import { CONNECT_TIMEOUT_MS, KEEP_ALIVE_DELAY_MS } from './database.js';
import type { Queryable } from './queryable.js';

export const JOB_NOTICE_CHANNEL = 'svc_stt_jobs';
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5_000;

export function encodeNotice(notice: JobNotice): string {
  return notice.kind === 'queued' ? 'q' : `c:${notice.jobId}`;
}

export function decodeNotice(payload: string | undefined): JobNotice | null {
  if (payload === 'q') return { kind: 'queued' };
  // Anything but one of our job ids is not ours (and could not name a job a poll waits on).
  if (payload?.startsWith('c:') && JOB_ID.test(payload.slice(2))) return { kind: 'changed', jobId: payload.slice(2) };
  return null;
}

export class PgJobNotices implements JobNotices {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private listener: pg.Client | null = null;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private retryTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly url: string,
    private readonly db: Queryable,
  ) {}

  /** Resolves once the first LISTEN is in place, so no notice published after start is missed. */
  static async open(url: string, db: Queryable): Promise<PgJobNotices> {
    const notices = new PgJobNotices(url, db);
    await notices.listen();
    return notices;
  }

  publish(notice: JobNotice): void {
    if (this.closed) return;
    this.db.query('SELECT pg_notify($1, $2)', [JOB_NOTICE_CHANNEL, encodeNotice(notice)]).catch(() => {
      // Dropped: the database is unreachable, and the pollers' timers cover the lost wake-up.
    });
  }

  subscribe(listener: (notice: JobNotice) => void): () => void {
    this.emitter.on('notice', listener);
    return () => this.emitter.off('notice', listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.emitter.removeAllListeners();
    const client = this.listener;
    this.listener = null;
    await client?.end().catch(() => {});
  }

  private async listen(): Promise<void> {
    // Keep-alive: a listener on a connection that died without a word would go deaf, not fail.
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
    });
    client.on('notification', (message) => {
      if (message.channel !== JOB_NOTICE_CHANNEL) return;
      const notice = decodeNotice(message.payload);
      if (notice) this.emitter.emit('notice', notice);
    });
    // Until LISTEN is in place a failure is the caller's to handle (the promise rejects).
    const ignore = () => {};
    client.on('error', ignore);
    try {
      await client.connect();
      await client.query(`LISTEN ${JOB_NOTICE_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    // From now on either event means the connection is gone: reopen it once.
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.listener === client) this.listener = null;
      client.end().catch(() => {});
      this.scheduleReconnect();
    };
    client.off('error', ignore);
    client.on('error', onLost);
    client.on('end', onLost);
    this.listener = client;
    this.retryMs = RECONNECT_MIN_MS;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.listen().then(
        // Notices sent while nobody listened are gone: let idle workers look for work.
        () => this.emitter.emit('notice', { kind: 'queued' } satisfies JobNotice),
        () => this.scheduleReconnect(),
      );
    }, delay);
    this.retryTimer.unref();
  }
}
