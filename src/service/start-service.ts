// Wires the embedded service: SQLite metadata and local blobs in the data folder, the engines, the
// Fastify app with its routes; prints the ready line scripts wait for; shuts down gracefully.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../api/build-app.js';
import { transcriptionRoutes } from '../api/routes/transcriptions.js';
import { defaultPublicBaseUrl } from '../config/load-config.js';
import type { ServiceConfig } from '../config/service-config.js';
import { HoldingJobQueue, type JobQueue } from '../jobs/job-queue.js';
import { LocalBlobStore } from '../store/local-blob-store.js';
import { databasePath, openDatabase } from '../store/sqlite/database.js';
import { SqliteIdempotencyStore } from '../store/sqlite/sqlite-idempotency-store.js';
import { SqliteJobStore } from '../store/sqlite/sqlite-job-store.js';
import { SqliteKeyStore } from '../store/sqlite/sqlite-key-store.js';
import { openEngines } from './open-engines.js';
import { startSweeper } from './sweeper.js';

export interface RunningService {
  app: FastifyInstance;
  url: string;
  /** Present when the database had no key and one was created at start. */
  firstKey: string | null;
  queue: JobQueue;
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: boolean | object;
  queue?: JobQueue;
}

export async function startService(config: ServiceConfig, options: StartOptions = {}): Promise<RunningService> {
  mkdirSync(config.dataDir, { recursive: true });
  const db = openDatabase(databasePath(config.dataDir));
  const keys = new SqliteKeyStore(db);
  const jobs = new SqliteJobStore(db);
  const idempotency = new SqliteIdempotencyStore(db);
  const blobs = new LocalBlobStore(join(config.dataDir, 'blobs'));
  const queue = options.queue ?? new HoldingJobQueue();

  // One server owns this database: claims left in progress by a crash can never complete, and would
  // answer the client's retry with 409 for a day.
  idempotency.releaseAbandoned();
  const sweeper = startSweeper(idempotency, blobs, jobs);

  // A fresh install answers its first curl: one key, shown once.
  const firstKey = keys.count() === 0 ? keys.create({}).key : null;

  let engines: Awaited<ReturnType<typeof openEngines>>;
  try {
    engines = await openEngines(config);
  } catch (error) {
    sweeper.stop();
    db.close();
    throw error;
  }
  const app = buildApp({
    config,
    keys,
    logger: options.logger ?? { level: config.logLevel },
    routes: [
      transcriptionRoutes({
        config,
        engines: engines.engines,
        modelBuilds: engines.modelBuilds,
        keys,
        jobs,
        idempotency,
        blobs,
        queue,
        hasWebhookSecret: () => false,
      }),
    ],
  });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    sweeper.stop();
    await engines.close();
    db.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // Listening on port 0 (tests): links handed to clients must carry the port actually bound.
  if (config.port === 0 && config.publicBaseUrl.endsWith(':0')) config.publicBaseUrl = defaultPublicBaseUrl(config.host, port);
  let closing: Promise<void> | null = null;
  return {
    app,
    url,
    firstKey,
    queue,
    close: () =>
      (closing ??= (async () => {
        // Stop accepting, let in-flight requests finish, then free the engines and the database.
        // Connections that turn idle after their request finished would otherwise be kept until the
        // keep-alive timeout (72 s), holding the shutdown.
        const closeIdle = setInterval(() => app.server.closeIdleConnections(), 100);
        try {
          await app.close();
        } finally {
          clearInterval(closeIdle);
        }
        sweeper.stop();
        await engines.close();
        db.close();
      })()),
  };
}
