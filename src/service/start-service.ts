// Wires the service: the stores (SQLite in the data folder by default, or PostgreSQL), local blobs,
// the engines, the Fastify app with its routes; prints the ready line scripts wait for; shuts down
// gracefully.
import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { isKeyActive } from '../api/authenticate.js';
import { buildApp } from '../api/build-app.js';
import { jobRoutes } from '../api/routes/jobs.js';
import { presignedUploadRoutes } from '../api/routes/presigned-upload.js';
import { transcriptionRoutes } from '../api/routes/transcriptions.js';
import { defaultPublicBaseUrl } from '../config/load-config.js';
import type { ServiceConfig } from '../config/service-config.js';
import { JobEvents } from '../jobs/job-events.js';
import { JobHousekeeping } from '../jobs/job-housekeeping.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { JobRunner } from '../jobs/job-runner.js';
import type { BlobStore } from '../store/blob-store.js';
import { LocalBlobStore, localBlobRoot } from '../store/local-blob-store.js';
import { newInstanceId } from '../store/instance-registry.js';
import { openStores } from '../store/open-stores.js';
import { loadUploadSigningSecret } from '../store/upload-signing-secret.js';
import { loadWebhookMasterKey } from '../webhooks/master-key.js';
import { postWebhook } from '../webhooks/post-webhook.js';
import { createDestinationValidator } from '../webhooks/validate-destination.js';
import { WebhookAdmission } from '../webhooks/webhook-admission.js';
import { WebhookDeliveryWorker } from '../webhooks/webhook-delivery-worker.js';
import { openEngines } from './open-engines.js';
import { firstKeyPath, writeFirstKeyFile } from './first-key-file.js';
import { InstanceLifecycle } from './instance-lifecycle.js';
import { startSweeper } from './sweeper.js';

export interface RunningService {
  app: FastifyInstance;
  url: string;
  /** Present when the database had no key and one was created at start (also in `firstKeyFile`). */
  firstKey: string | null;
  /** The 0600 file in the data folder holding `firstKey`; null when no key was created. */
  firstKeyFile: string | null;
  /** The worker loop: accepted jobs of both routes are handed to it. */
  queue: JobQueue;
  /** Runs the sweeper's pass now (tests drive expiry with an injected clock). */
  sweepNow(): Promise<void>;
  /** Attempts every webhook event due now; resolves with the number of attempts (tests drive retries with the clock). */
  deliverWebhooksNow(): Promise<number>;
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: boolean | object;
  /** The clock of the job lifecycle (deadlines, retention, upload forms); tests inject one. */
  clock?: () => Date;
  /**
   * Wraps the blob store the routes and workers use: tests inject storage faults at this boundary
   * (a full disk during an upload) without changing what the store does otherwise.
   */
  wrapBlobs?: (blobs: LocalBlobStore) => BlobStore;
}

export async function startService(config: ServiceConfig, options: StartOptions = {}): Promise<RunningService> {
  mkdirSync(config.dataDir, { recursive: true });
  const instanceId = newInstanceId();
  const stores = await openStores({
    instanceId,
    dataDir: config.dataDir,
    databaseUrl: config.database.url,
    webhookMasterKey: () => loadWebhookMasterKey(config.dataDir, config.webhooks.masterKey),
  });
  const { keys, jobs, idempotency, webhookSecrets, outbox } = stores;
  const localBlobs = new LocalBlobStore(localBlobRoot(config.dataDir));
  const blobs = options.wrapBlobs?.(localBlobs) ?? localBlobs;
  const clock = options.clock ?? (() => new Date());
  const uploadSecret = loadUploadSigningSecret(config.dataDir);
  const events = new JobEvents();
  const validateDestination = createDestinationValidator({
    allowLoopback: config.webhooks.allowLoopback,
    dnsServers: config.webhooks.dnsServers,
  });
  const housekeeping = new JobHousekeeping({ jobs, blobs, keys, events, defaultRetentionHours: config.retentionHours });

  // Registered before any work is taken; what dead instances held (with SQLite: every earlier
  // process) is released — job leases, uploads cut off mid-stream, webhook attempts, idempotency claims.
  const instance = new InstanceLifecycle(instanceId, stores, 'all');
  await instance.start();
  const sweeper = startSweeper(idempotency, localBlobs, jobs, { housekeeping, clock, sweepAllOrphansFirst: stores.kind === 'sqlite' });
  // Before anything can write a blob: the first pass removes whatever a crash left unreferenced.
  await sweeper.initial;

  // A fresh install answers its first curl: one key, handed over in a 0600 file in the data folder
  // (never in the logs). Committed only once its file is written, so no key exists that nobody has.
  const firstKey = await keys.createFirstKey((key) => writeFirstKeyFile(config.dataDir, key));

  let engines: Awaited<ReturnType<typeof openEngines>>;
  try {
    engines = await openEngines(config);
  } catch (error) {
    sweeper.stop();
    await instance.stop();
    await stores.close();
    throw error;
  }
  const runner = new JobRunner({
    // The delivery worker is created with the app (it logs through it); a job succeeds only after start.
    webhooks: { kick: () => deliveries.kick() },
    config,
    instanceId: instance.id,
    jobs,
    blobs,
    keys,
    engines: engines.engines,
    stages: engines.stages,
    modelBuilds: engines.modelBuilds,
    events,
    clock,
    chunkSeconds: config.jobs?.chunkSeconds,
  });
  const queue: JobQueue = runner;
  const webhooks = new WebhookAdmission(webhookSecrets, validateDestination, clock);
  const app = buildApp({
    config,
    keys,
    logger: options.logger ?? { level: config.logLevel },
    routes: [
      jobRoutes({
        config,
        jobs,
        blobs,
        idempotency,
        queue,
        events,
        housekeeping,
        uploadSecret,
        clock,
        uploadExpirySeconds: config.jobs?.uploadExpirySeconds,
        webhooks,
        keys,
      }),
      presignedUploadRoutes({ config, jobs, blobs, keys, secret: uploadSecret, clock }),
      transcriptionRoutes({
        config,
        engines: engines.engines,
        stages: engines.stages,
        modelBuilds: engines.modelBuilds,
        keys,
        jobs,
        idempotency,
        blobs,
        queue,
        webhooks,
      }),
    ],
  });
  if (config.webhooks.allowLoopback) {
    app.log.warn('SVC_WEBHOOK_ALLOW_LOOPBACK is set: webhooks may reach loopback addresses on any port (tests only; never in production)');
  }
  const deliveries = new WebhookDeliveryWorker({
    instanceId: instance.id,
    outbox,
    secrets: webhookSecrets,
    validate: validateDestination,
    post: postWebhook,
    clock,
    attemptTimeoutMs: config.webhooks.attemptTimeoutMs,
    keyRevoked: async (keyId) => !(await isKeyActive(keys, keyId)),
    logger: app.log,
  });
  runner.start();
  deliveries.start();
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    events.close();
    await runner.stop();
    await deliveries.stop();
    sweeper.stop();
    await engines.close();
    await instance.stop();
    await stores.close();
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
    firstKeyFile: firstKey === null ? null : firstKeyPath(config.dataDir),
    queue,
    sweepNow: () => sweeper.sweepNow(),
    deliverWebhooksNow: () => deliveries.deliverDue(),
    close: () =>
      (closing ??= (async () => {
        // Stop accepting, let in-flight requests finish, then free the engines and the database.
        // Connections that turn idle after their request finished would otherwise be kept until the
        // keep-alive timeout (72 s), holding the shutdown.
        const closeIdle = setInterval(() => app.server.closeIdleConnections(), 100);
        // Long polls answer now rather than hold the shutdown for their wait.
        events.close();
        try {
          await app.close();
        } finally {
          clearInterval(closeIdle);
        }
        // Chunks in flight are abandoned (their leases released): they rerun after the restart.
        await runner.stop();
        // An attempt in flight finishes (at most one timeout); an event cut off here is retried after the restart.
        await deliveries.stop();
        sweeper.stop();
        await engines.close();
        await instance.stop();
        await stores.close();
      })()),
  };
}
