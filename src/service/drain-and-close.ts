// How a running service ends (SIGTERM, or close() in tests): stop accepting and stop claiming at once,
// then let what is in flight finish: requests and job chunks for up to the drain time (chunks not done
// by then are given back and rerun elsewhere), a webhook attempt for at most its own timeout. Then the
// engines, storage, the instance's registration and the stores, in that order.
import type { FastifyInstance } from 'fastify';

import type { ConsoleListener } from '../console/console-listener.js';
import type { JobEvents } from '../jobs/job-events.js';
import type { JobRunner } from '../jobs/job-runner.js';
import type { RealtimeListener } from '../realtime/realtime-listener.js';
import type { JobNotices } from '../store/job-notices.js';
import type { Stores } from '../store/open-stores.js';
import type { WebhookDeliveryWorker } from '../webhooks/webhook-delivery-worker.js';
import type { InstanceLifecycle } from './instance-lifecycle.js';
import type { MetricsListener } from './metrics-listener.js';
import type { OpenedEngines } from './open-engines.js';

export interface RunningParts {
  app: FastifyInstance;
  events: JobEvents;
  realtime: RealtimeListener | null;
  console: ConsoleListener | null;
  runner: JobRunner | null;
  notices: JobNotices;
  deliveries: WebhookDeliveryWorker | null;
  sweeper: { stop(): Promise<void> | void } | null;
  /** Reads the standing of open work's keys; stopped once the sessions and requests it watched are gone. */
  watch: { close(): void };
  metricsListener: MetricsListener | null;
  engines: OpenedEngines;
  blobs: { close(): void };
  instance: InstanceLifecycle;
  /** Keys' last uses still being written: waited for before the stores close under them. */
  keyUse: { settled(): Promise<void> };
  stores: Stores;
}

export async function drainAndClose(drainMs: number, parts: RunningParts): Promise<void> {
  const { app, events, runner, notices } = parts;
  // Connections that turn idle after their request would otherwise be kept until the keep-alive
  // timeout (72 s).
  const closeIdle = setInterval(() => app.server.closeIdleConnections(), 100);
  const cutOff = setTimeout(() => app.server.closeAllConnections(), drainMs);
  // Long polls answer now rather than hold the shutdown for their wait.
  events.close();
  try {
    await Promise.all([
      app.close(),
      parts.realtime?.close(),
      parts.console?.close(),
      runner?.stop(drainMs).then(() => notices.publish({ kind: 'queued' })),
      parts.deliveries?.stop(),
      parts.sweeper?.stop(),
    ]);
  } finally {
    clearInterval(closeIdle);
    clearTimeout(cutOff);
  }
  parts.watch.close();
  await parts.metricsListener?.close();
  await parts.engines.close();
  parts.blobs.close();
  await parts.instance.stop();
  await parts.keyUse.settled();
  await parts.stores.close();
}
