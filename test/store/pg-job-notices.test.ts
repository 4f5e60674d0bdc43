// LISTEN/NOTIFY wake-ups between processes (src/store/postgres/pg-job-notices.ts), on a real server:
// a notice published through one connection reaches every listener, the publisher's own included;
// a listener whose connection dies (the server restarts) comes back by itself and tells its
// subscribers to look for work; payloads that are not ours are ignored.
import { once } from 'node:events';
import { EventEmitter } from 'node:events';

import t from 'tap';

import { JobEvents } from '../../src/jobs/job-events.js';
import type { JobNotice } from '../../src/store/job-notices.js';
import { openPostgres } from '../../src/store/postgres/database.js';
import { decodeNotice, encodeNotice, JOB_NOTICE_CHANNEL, PgJobNotices } from '../../src/store/postgres/pg-job-notices.js';
import { sharedPostgres } from '../helpers/postgres-server.js';

/** The notices a subscriber receives, awaitable one by one. */
function collect(notices: PgJobNotices) {
  const seen = new EventEmitter();
  const received: JobNotice[] = [];
  notices.subscribe((notice) => {
    received.push(notice);
    seen.emit('notice', notice);
  });
  return {
    received,
    next: async (timeoutMs = 10_000): Promise<JobNotice> => {
      const [notice] = (await once(seen, 'notice', { signal: AbortSignal.timeout(timeoutMs) })) as [JobNotice];
      return notice;
    },
  };
}

t.test('payloads: encoded and decoded; anything else is ignored', async (t) => {
  t.same(decodeNotice(encodeNotice({ kind: 'queued' })), { kind: 'queued' });
  t.same(decodeNotice(encodeNotice({ kind: 'changed', jobId: 'job_abc' })), { kind: 'changed', jobId: 'job_abc' });
  for (const payload of [undefined, '', 'c:', 'x', `c:${'a'.repeat(129)}`, 'queued']) t.equal(decodeNotice(payload), null, String(payload));
});

t.test('across connections, and back after the server restarts', async (t) => {
  const server = await sharedPostgres();
  const url = await server.createDatabase();
  const dbA = await openPostgres(url);
  const dbB = await openPostgres(url);
  const a = await PgJobNotices.open(url, dbA);
  const b = await PgJobNotices.open(url, dbB);
  t.teardown(async () => {
    await a.close();
    await b.close();
    await dbA.close();
    await dbB.close();
  });
  const atA = collect(a);
  const atB = collect(b);

  const toB = atB.next();
  const toA = atA.next();
  a.publish({ kind: 'changed', jobId: 'job_one' });
  t.same(await toB, { kind: 'changed', jobId: 'job_one' }, 'another process hears it');
  t.same(await toA, { kind: 'changed', jobId: 'job_one' }, 'and so does the publisher');

  const queued = [atA.next(), atB.next()];
  b.publish({ kind: 'queued' });
  t.same(await Promise.all(queued), [{ kind: 'queued' }, { kind: 'queued' }]);

  // Somebody else's payload on our channel changes nothing.
  const before = atB.received.length;
  await dbA.query('SELECT pg_notify($1, $2)', [JOB_NOTICE_CHANNEL, 'not ours']);
  const marker = atB.next();
  a.publish({ kind: 'changed', jobId: 'job_marker' });
  t.same(await marker, { kind: 'changed', jobId: 'job_marker' });
  t.equal(atB.received.length, before + 1, 'only the marker arrived');

  // The server goes away; publishing meanwhile is dropped without an error. (The reconnect timer
  // does not hold the process open — a server's listener does that — so this test holds it.)
  const keepAlive = setInterval(() => {}, 1000);
  t.teardown(() => clearInterval(keepAlive));
  await server.stop();
  a.publish({ kind: 'changed', jobId: 'job_lost' });
  const recovered = atB.next(30_000);
  await server.start();
  t.same(await recovered, { kind: 'queued' }, 'after reconnecting, subscribers are told to look for work');
  // The listener is back: a notice published now arrives.
  let arrived: JobNotice | null = null;
  for (let i = 0; i < 50 && arrived === null; i++) {
    const next = atB.next(500).catch(() => null);
    a.publish({ kind: 'changed', jobId: 'job_after' });
    arrived = await next;
  }
  t.same(arrived, { kind: 'changed', jobId: 'job_after' });
});

t.test('close: no more notices, and the listening connection is gone', async (t) => {
  const server = await sharedPostgres();
  const url = await server.createDatabase();
  const db = await openPostgres(url);
  t.teardown(() => db.close());
  const notices = await PgJobNotices.open(url, db);
  const other = await PgJobNotices.open(url, db);
  t.teardown(() => other.close());
  const heard: JobNotice[] = [];
  notices.subscribe((notice) => heard.push(notice));
  const listeners = async () =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`)).rows[0].n;
  t.equal(await listeners(), 2);
  await notices.close();
  t.equal(await listeners(), 1, 'its LISTEN connection is gone');
  notices.publish({ kind: 'queued' });
  // What another process publishes now reaches the open one, not the closed one.
  const atOther = collect(other).next();
  other.publish({ kind: 'changed', jobId: 'job_after_close' });
  t.same(await atOther, { kind: 'changed', jobId: 'job_after_close' });
  t.same(heard, [], 'nothing after close');
});

t.test("JobEvents on notices: a long poll in one process wakes on another's change, not on its timer", async (t) => {
  const server = await sharedPostgres();
  const url = await server.createDatabase();
  const db = await openPostgres(url);
  const apiNotices = await PgJobNotices.open(url, db);
  const workerNotices = await PgJobNotices.open(url, db);
  const api = new JobEvents(apiNotices);
  const worker = new JobEvents(workerNotices);
  t.teardown(async () => {
    api.close();
    worker.close();
    await apiNotices.close();
    await workerNotices.close();
    await db.close();
  });
  // Only a notice ends a wait with true (its timer, the server closing or the client leaving give false).
  const waiting = api.waitForChange('job_x', 60_000);
  worker.notify('job_y');
  worker.notify('job_x');
  t.equal(await waiting, true, 'woken by the change');
  t.equal(await api.waitForChange('job_x', 300), false, 'without a notice, the wait runs out');
});
