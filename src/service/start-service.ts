// Wires one service process for its role (config.role; docs/DESIGN.md "Scale-out"):
//   api     the HTTP API: accepts, validates and stores requests; answers inline transcriptions
//           itself (the contract's synchronous 200, so it runs the engines too);
//   worker  claims and runs jobs, delivers webhooks, sweeps; its listener serves health and metrics;
//   all     both in one process (the default, and the only choice on SQLite's one-server database).
// Every role registers as an instance (its work is released if it dies), serves /healthz, /readyz
// and /metrics, prints the ready line scripts wait for, and drains on close.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

import { createAppLogger } from '../api/app-logger.js';
import { buildApp } from '../api/build-app.js';
import { KeyRateLimiter } from '../api/rate-limit.js';
import { TokenBuckets } from '../api/token-bucket.js';
import { isKeyActive } from '../application/require-active-key.js';
import { requireAudioTools } from '../audio/audio-tools.js';
import { billingPeriodAt } from '../billing/billing-period.js';
import { KeyStandingWatch } from '../billing/key-standing-watch.js';
import { UsageBilling } from '../billing/usage-billing.js';
import { defaultPublicBaseUrl } from '../config/load-config.js';
import type { ServiceConfig } from '../config/service-config.js';
import { DEFAULT_CONSOLE_LIMITS } from '../console/console-context.js';
import { startConsoleListener } from '../console/console-listener.js';
import { JobEvents } from '../jobs/job-events.js';
import { JobHousekeeping } from '../jobs/job-housekeeping.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { JobRunner } from '../jobs/job-runner.js';
import { revokeKey } from '../jobs/key-revocation.js';
import type { PipelineStages } from '../pipeline/pipeline-engine.js';
import { type RealtimeListener, type RealtimeListenerOptions, startRealtimeListener } from '../realtime/realtime-listener.js';
import type { SessionOutcome } from '../realtime/realtime-session.js';
import { uwsUnavailableReason } from '../realtime/transport/open-transport.js';
import type { BlobStore } from '../store/blob-store.js';
import { newInstanceId } from '../store/instance-registry.js';
import { KeyUseRecorder } from '../store/key-use-recorder.js';
import { openBlobStore } from '../store/open-blob-store.js';
import { openStores, type Stores } from '../store/open-stores.js';
import { makePrivateDir } from '../store/private-mode.js';
import { SealedBlobStore, type TenantBlobs } from '../store/sealed-blob-store.js';
import { loadWebhookMasterKey } from '../webhooks/master-key.js';
import { postWebhook } from '../webhooks/post-webhook.js';
import { createDestinationValidator } from '../webhooks/validate-destination.js';
import { WebhookDeliveryWorker } from '../webhooks/webhook-delivery-worker.js';
import { warnOfWiderModes } from './data-folder-modes.js';
import { DatabaseClock } from './database-clock.js';
import { drainAndClose } from './drain-and-close.js';
import { firstKeyPath, writeFirstKeyFile } from './first-key-file.js';
import { InstanceLifecycle } from './instance-lifecycle.js';
import { startListener } from './listener-start.js';
import { type MetricsListener, startMetricsListener } from './metrics-listener.js';
import { type OpenedEngines, openEngines, withWrappedStages } from './open-engines.js';
import { PlainBlobWalk } from './plain-blob-walk.js';
import { PlainContentMigration } from './plain-content-migration.js';
import { type RolePlan, rolePlan, RoleRefusedError } from './role-plan.js';
import { runtimeNotes } from './runtime-notes.js';
import { ServiceMetrics } from './service-metrics.js';
import { serviceRoutes, transcribeUploadDeps } from './service-routes.js';
import { startSweeper } from './sweeper.js';
import { startTracing } from './tracing.js';

/** The console's limits, one value for its listener and the sweeper (which deletes the sessions past them). */
const CONSOLE_LIMITS = DEFAULT_CONSOLE_LIMITS;

export interface RunningService {
  app: FastifyInstance;
  url: string;
  /** The separate metrics listener's URL (SVC_METRICS_PORT), else null. */
  metricsUrl: string | null;
  /** The developer console's listener (SVC_CONSOLE_PORT), on roles that serve the API; else null. */
  consoleUrl: string | null;
  /** The realtime listener (SVC_REALTIME_PORT, `ws://`), on roles that serve the API; else null. */
  realtime: RealtimeListener | null;
  /** Present when the database had no key and one was created at start (also in `firstKeyFile`). */
  firstKey: string | null;
  /** The 0600 file in the data folder holding `firstKey`; null when no key was created. */
  firstKeyFile: string | null;
  /** Where accepted jobs are announced: this process's workers and, through the database, every other's. */
  queue: JobQueue;
  /** This process's instance id (leases it holds name it). */
  instanceId: string;
  /** Runs the sweeper's pass now (tests drive expiry with an injected clock); a no-op on `api`. */
  sweepNow(): Promise<void>;
  /** Attempts every webhook event due now; resolves with the number of attempts (0 on `api`). */
  deliverWebhooksNow(): Promise<number>;
  /** Resolves once the keys' last uses noted so far are written (the writes are never awaited by requests). */
  keyUsesWritten(): Promise<void>;
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
  wrapBlobs?: (blobs: BlobStore) => BlobStore;
  /** Tests: wraps the sealing store, to change content before it is sealed (wrapBlobs sees it sealed). */
  wrapTenantBlobs?: (blobs: TenantBlobs) => TenantBlobs;
  /**
   * Wraps each model's pipeline stages: tests put a recorded decode in the engine's place (words known
   * to hold PHI, which a generated model never says), the rest of the service as it is.
   */
  wrapStages?: (stages: PipelineStages) => PipelineStages;
}

export { RoleRefusedError };

export async function startService(config: ServiceConfig, options: StartOptions = {}): Promise<RunningService> {
  // Judged from the settings before anything is created: a refused role leaves no data folder or database behind.
  const plan = rolePlan(config.role, config.database.url === null ? 'sqlite' : 'postgres');
  // Every role decodes audio (the API inline, workers jobs): without the tools only WAV-less 500s would follow.
  requireAudioTools();
  makePrivateDir(config.dataDir);
  const instanceId = newInstanceId();
  // First, so that the stores' and the roles' steps are traced too; flushed last.
  const stopTracing = startTracing({ role: config.role, instanceId }, process.env);
  // The process's time on the database's clock, once startRole has measured it (database-clock.ts).
  const time = { now: Date.now };
  const stores = await openStores({
    instanceId,
    dataDir: config.dataDir,
    databaseUrl: config.database.url,
    webhookMasterKey: () => loadWebhookMasterKey(config.dataDir, config.webhooks.masterKey),
    previousMasterKeys: () => config.webhooks.previousMasterKeys.map((key) => Buffer.from(key, 'base64')),
    kms: config.webhooks.kms,
    // A rotated key is refused from its revoke_at on the service's clock (tests move it).
    clock: () => options.clock?.().getTime() ?? time.now(),
  });
  const closers: Array<() => Promise<void> | void> = [stopTracing, () => stores.close()];
  const unwind = async () => {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => {});
  };
  try {
    // Content sealed under a master key this process lacks could not be read: refuse, naming the key id.
    await stores.requireMasterKeys();
    const running = await startRole(config, options, instanceId, stores, plan, closers, time);
    const close = running.close;
    return { ...running, close: () => close().then(stopTracing) };
  } catch (error) {
    await unwind();
    throw error;
  }
}

/** What the stages of a role share: its settings and stores, the process's one log and what closes it. */
interface Role {
  config: ServiceConfig;
  options: StartOptions;
  instanceId: string;
  stores: Stores;
  plan: RolePlan;
  closers: Array<() => Promise<void> | void>;
  clock: () => Date;
  /** Epoch milliseconds on the database's clock (never a test's injected clock): instance heartbeats. */
  now: () => number;
  /** The process's one log, made first: every stage writes to it, and the app logs through a child of it. */
  log: FastifyBaseLogger;
}

/** A role's stages, in order: the log, storage, engines and billing, background work, the job runner, the app, its listeners. */
async function startRole(
  config: ServiceConfig,
  options: StartOptions,
  instanceId: string,
  stores: Stores,
  plan: RolePlan,
  closers: Array<() => Promise<void> | void>,
  time: { now: () => number },
): Promise<RunningService> {
  const log = createAppLogger(options.logger, config.logLevel);
  // Leases, heartbeats and expiries that other processes compare are judged by the database's clock.
  if (stores.databaseTimeMs) {
    const databaseClock = new DatabaseClock(stores.databaseTimeMs, log);
    await databaseClock.start();
    closers.push(() => databaseClock.stop());
    time.now = () => databaseClock.now();
  }
  const now = time.now;
  const role: Role = { config, options, instanceId, stores, plan, closers, clock: options.clock ?? (() => new Date(now())), now, log };
  const storage = openStorage(role);
  const computing = await openComputing(role, storage);
  const background = await startBackground(role, storage, computing);
  // A fresh install answers its first curl: one key, handed over in a 0600 file in the data folder
  // (never in the logs). Committed only once its file is written, so no key exists that nobody has.
  const firstKey = plan.serves ? await stores.keys.createFirstKey((key) => writeFirstKeyFile(config.dataDir, key)) : null;
  const work = startWork(role, storage, computing, background);
  const api = await buildApi(role, storage, computing, background, work);
  const listeners = await startListeners(role, storage, computing, work, api);
  let closing: Promise<void> | null = null;
  return {
    app: api.app,
    url: listeners.url,
    metricsUrl: listeners.metrics ? urlOf(config.host, listeners.metrics.port) : null,
    consoleUrl: listeners.console?.url ?? null,
    realtime: listeners.realtime,
    firstKey,
    firstKeyFile: firstKey === null ? null : firstKeyPath(config.dataDir),
    queue: work.queue,
    instanceId,
    sweepNow: () => background.sweeper?.sweepNow() ?? Promise.resolve(),
    deliverWebhooksNow: () => background.deliveries?.deliverDue() ?? Promise.resolve(0),
    keyUsesWritten: () => api.keyUse.settled(),
    close: () =>
      (closing ??= drainAndClose(config.lifecycle.drainMs, {
        app: api.app,
        events: storage.events,
        realtime: listeners.realtime,
        console: listeners.console,
        runner: work.runner,
        notices: stores.notices,
        deliveries: background.deliveries,
        sweeper: background.sweeper,
        watch: computing.watch,
        metricsListener: listeners.metrics,
        engines: computing.engines,
        blobs: { close: storage.closeBlobs },
        instance: background.instance,
        keyUse: api.keyUse,
        stores,
      })),
  };
}

/** The blob store (wrapped where a test injects faults), job events, and the webhook destination check. */
function openStorage({ config, options, stores, closers, plan }: Role) {
  const opened = openBlobStore(config.dataDir, config.storage.s3);
  // Job audio and results sealed under their tenant's data key; faults are injected beneath the sealing.
  const sealed = new SealedBlobStore(options.wrapBlobs?.(opened.blobs) ?? opened.blobs, stores.sealer);
  // An existing installation's plain content and blobs, sealed in the background where housekeeping runs.
  const sealing = plan.works ? new PlainContentMigration(stores.plainContent, new PlainBlobWalk(stores.plainBlobs(sealed))) : null;
  const blobs = options.wrapTenantBlobs?.(sealed) ?? sealed;
  const closeBlobs = () => {
    sealed.close();
    opened.close();
  };
  closers.push(closeBlobs);
  const events = new JobEvents(stores.notices);
  closers.push(() => events.close());
  const validateDestination = createDestinationValidator({ allowLoopback: config.webhooks.allowLoopback, dnsServers: config.webhooks.dnsServers });
  return { opened, blobs, closeBlobs, events, validateDestination, sealing };
}
type Storage = ReturnType<typeof openStorage>;

/** The engines, the metrics that read them, billing (told by the metrics of what it meters) and the key watch. */
async function openComputing({ config, options, instanceId, stores, closers, clock }: Role, storage: Storage) {
  const engines: OpenedEngines = withWrappedStages(await openEngines(config), options.wrapStages);
  closers.push(() => engines.close());
  const metrics = new ServiceMetrics({
    role: config.role,
    jobCounts: (now) => stores.jobs.jobCounts(now),
    engines: () => engines.engines,
    // The gauges read the billing period at scrape time, by the stored start day.
    usageTotals: async () => stores.usage.periodTotals(billingPeriodAt(clock().getTime(), await stores.billing.periodStartDay()).label),
    tenantLabels: config.metricsTenantLabels,
    plainContent: () => storage.sealing?.plainLeft() ?? null,
  });
  const billing = new UsageBilling(stores.usage, stores.billing, () => clock().getTime(), metrics, instanceId);
  // Open sessions and inline decodes are told when their key is revoked or paused, by any process.
  const watch = new KeyStandingWatch(stores.keys, config.lifecycle.keyWatchMs);
  closers.push(() => watch.close());
  return { engines, metrics, billing, watch };
}
type Computing = Awaited<ReturnType<typeof openComputing>>;

/**
 * Registered as an instance before any work is taken, with what dead instances held released (with
 * SQLite: every earlier process's job leases, cut-off uploads, webhook attempts, idempotency claims);
 * then the request bodies a crash left in the local spool removed; then, on roles that work, the
 * webhook deliveries and the sweeper, whose first pass removes whatever a crash left unreferenced
 * before anything can write a blob.
 */
async function startBackground(role: Role, storage: Storage, computing: Computing) {
  const { config, instanceId, stores, plan, closers, clock, now, log } = role;
  const { keys, jobs, outbox } = stores;
  const deliveries = plan.works
    ? new WebhookDeliveryWorker({
        instanceId,
        outbox,
        secrets: stores.webhookSecrets,
        validate: storage.validateDestination,
        post: postWebhook,
        clock,
        attemptTimeoutMs: config.webhooks.attemptTimeoutMs,
        keyRevoked: async (keyId) => !(await isKeyActive(keys, keyId)),
        logger: log,
        onAttempt: (outcome) => computing.metrics.webhookAttempt(outcome),
      })
    : null;
  const { blobs, events } = storage;
  const housekeeping = new JobHousekeeping({
    jobs,
    blobs,
    keys,
    events,
    ...(deliveries ? { webhooks: deliveries } : {}),
    config,
    defaultRetentionHours: config.retentionHours,
    log,
  });
  const instance = new InstanceLifecycle(instanceId, stores, config.role, config.lifecycle.instanceTtlMs, now);
  await instance.start(log);
  closers.push(() => instance.stop());
  // The spool is this process's own and nothing streams into it yet: what is there a crash cut off.
  // Removed now, on every role: an api process runs no sweeper, and the sweeper's age guard keeps
  // spooled bodies an hour (with shared storage its first pass is no wholesale one).
  const spooled = await storage.opened.blobs.sweepSpool().catch((error: unknown) => {
    log.warn({ err: error }, 'the upload spool could not be cleared at start; the sweeper retries');
    return 0;
  });
  if (spooled > 0) log.info({ removed: spooled }, 'removed request bodies a crash cut off');
  if (!plan.works) return { instance, housekeeping, deliveries, sweeper: null };
  // Only a process alone with its database and disk may treat every unreferenced blob as an orphan
  // at start: with shared storage another process may be writing one right now.
  const alone = stores.kind === 'sqlite' && storage.opened.kind === 'local';
  const sweeper = startSweeper(stores.idempotency, storage.opened.blobs, jobs, {
    housekeeping,
    ledger: stores.usage,
    clock,
    sweepAllOrphansFirst: alone,
    ...(storage.sealing ? { sealing: storage.sealing } : {}),
    keyRevocations: { keys, jobs, blobs, outbox },
    credentials: {
      consoleAccounts: stores.consoleAccounts,
      consoleSecondFactors: stores.consoleSecondFactors,
      clientSecrets: stores.clientSecrets,
      sessionLimits: CONSOLE_LIMITS,
    },
    onKeyRevoked: ({ record, slotsClosed, webhookEventsCancelled }) =>
      log.info(
        { audit: 'key_revoked', keyId: record.id, tenantId: record.tenant, scheduled: true, slotsClosed, webhookEventsCancelled },
        'key revoked on schedule',
      ),
  });
  closers.push(() => sweeper.stop());
  await sweeper.initial;
  return { instance, housekeeping, deliveries, sweeper };
}
type Background = Awaited<ReturnType<typeof startBackground>>;

/** The job runner on roles that work, and the queue: accepted work is announced to every process on the database. */
function startWork(role: Role, storage: Storage, computing: Computing, background: Background) {
  const { config, instanceId, stores, plan, closers, clock, log } = role;
  const { engines, metrics, billing } = computing;
  const runner = plan.works
    ? new JobRunner({
        ...(background.deliveries ? { webhooks: background.deliveries } : {}),
        log,
        config,
        instanceId,
        jobs: stores.jobs,
        blobs: storage.blobs,
        keys: stores.keys,
        engines: engines.engines,
        stages: engines.stages,
        voices: stores.voices,
        modelBuilds: engines.modelBuilds,
        events: storage.events,
        billing,
        clock,
        chunkSeconds: config.jobs?.chunkSeconds,
        observer: metrics,
      })
    : null;
  // This process's workers, if any, are woken directly too.
  const queue: JobQueue = {
    enqueue: (jobId) => {
      runner?.enqueue(jobId);
      stores.notices.publish({ kind: 'queued' });
    },
  };
  if (runner) closers.push(stores.notices.subscribe((notice) => notice.kind === 'queued' && runner.enqueue('')));
  return { runner, queue };
}
type Work = ReturnType<typeof startWork>;

/** The HTTP app; once it exists the workers and deliveries start (the app's routes are their queue's callers). */
async function buildApi(role: Role, storage: Storage, computing: Computing, background: Background, work: Work) {
  const { config, instanceId, stores, plan, closers, clock, log } = role;
  const { engines, metrics, billing, watch } = computing;
  const routes = serviceRoutes({
    config,
    serves: plan.serves,
    instanceId,
    stores,
    blobs: storage.blobs,
    queue: work.queue,
    events: storage.events,
    housekeeping: background.housekeeping,
    clock,
    engines,
    billing,
    watch,
    metrics,
    validateDestination: storage.validateDestination,
  });
  // One count of each key's requests in this process: the API's and the console playground's (which runs as a key).
  const keyRateLimiter = new KeyRateLimiter(new TokenBuckets(() => Date.now()), config.rateLimitPerMinute);
  // One memo of keys' last uses for the API, realtime and the console's playground.
  const keyUse = new KeyUseRecorder(stores.keys, () => clock().getTime(), log);
  const app = buildApp({
    config,
    keys: stores.keys,
    logger: log,
    routes,
    requestMetrics: metrics,
    keyRateLimiter,
    keyUse,
  });
  closers.push(() => app.close());
  await warnOfWiderModes(config.dataDir, app.log);
  if (config.webhooks.allowLoopback) {
    app.log.warn('SVC_WEBHOOK_ALLOW_LOOPBACK is set: webhooks may reach loopback addresses on any port (tests only; never in production)');
  }
  const { runner } = work;
  if (runner) {
    runner.start();
    closers.push(() => runner.stop());
  }
  const { deliveries } = background;
  if (deliveries) {
    deliveries.start();
    closers.push(() => deliveries.stop());
  }
  return { app, keyRateLimiter, keyUse };
}
type Api = Awaited<ReturnType<typeof buildApi>>;

/** The API's port, then on roles that serve it the realtime and console listeners, and the metrics port when set. */
async function startListeners(role: Role, storage: Storage, computing: Computing, work: Work, api: Api) {
  const { config, stores, plan, closers, clock } = role;
  const { app, keyUse } = api;
  const { engines, billing, watch } = computing;
  const { keys, jobs, outbox } = stores;
  await startListener({ name: 'API', portSetting: 'SVC_PORT', host: config.host, port: config.port }, () =>
    app.listen({ host: config.host, port: config.port }),
  );
  const realtime = plan.serves
    ? await startRealtime(
        config,
        {
          keys,
          clientSecrets: stores.clientSecrets,
          clock: () => clock().getTime(),
          keyUse,
          billing,
          watch,
          seats: stores.seats,
          engines: engines.engines,
          voices: stores.voices,
          onSessionEnd: sessionAudit(app.log),
        },
        app.log,
      )
    : null;
  if (realtime) closers.push(() => realtime.close());
  const { blobs, validateDestination } = storage;
  const consoleListener = plan.serves
    ? await startListener({ name: 'console', portSetting: 'SVC_CONSOLE_PORT', host: config.host, port: config.consolePort }, () =>
        startConsoleListener({
          host: config.host,
          port: config.consolePort,
          accounts: stores.consoleAccounts,
          keys,
          stores,
          billing,
          transcription: transcribeUploadDeps({ config, stores, blobs, queue: work.queue, clock, engines, billing, watch, validateDestination }),
          keyRate: api.keyRateLimiter,
          keyUse,
          realtimeUrl: realtime?.url ?? null,
          revokeKey: async (keyId) => void (await revokeKey({ keys, jobs, blobs, outbox }, keyId, clock().getTime())),
          clock: () => clock().getTime(),
          limits: CONSOLE_LIMITS,
          logger: app.log.child({ listener: 'console' }),
        }),
      )
    : null;
  if (consoleListener) closers.push(() => consoleListener.close());
  let metricsListener: MetricsListener | null = null;
  if (config.metricsPort !== null) {
    const port = config.metricsPort;
    metricsListener = await startListener({ name: 'metrics', portSetting: 'SVC_METRICS_PORT', host: config.host, port }, () =>
      startMetricsListener(config.host, port, computing.metrics),
    );
    const listener = metricsListener;
    closers.push(() => listener.close());
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // Listening on port 0 (tests): links handed to clients must carry the port actually bound.
  if (config.port === 0 && config.publicBaseUrl.endsWith(':0')) config.publicBaseUrl = defaultPublicBaseUrl(config.host, port);
  return { url: urlOf(config.host, port), realtime, console: consoleListener, metrics: metricsListener };
}

/** The realtime listener, and what the operator should know about the transport it chose. */
async function startRealtime(config: ServiceConfig, deps: Omit<RealtimeListenerOptions, 'host' | 'port' | 'transport'>, log: FastifyBaseLogger) {
  const realtime = await startListener({ name: 'realtime', portSetting: 'SVC_REALTIME_PORT', host: config.host, port: config.realtimePort }, () =>
    startRealtimeListener({ host: config.host, port: config.realtimePort, transport: config.realtimeTransport, ...deps }),
  );
  log.info(`realtime listening ${realtime.url} (transport ${realtime.transport}; paths /v1/realtime, /v1/stream)`);
  const facts = { uwsUnavailable: await uwsUnavailableReason(), realtime: { asked: config.realtimeTransport, serving: realtime.transport } };
  for (const note of runtimeNotes(facts)) log[note.level](note.message);
  return realtime;
}

/**
 * One access-audit line per realtime session, as for every HTTP request: who (key and tenant ids),
 * how it closed, the seconds received and billed, billing's word. Never content (not even the
 * client's own session_id, which the client chose).
 */
function sessionAudit(log: FastifyBaseLogger): (outcome: SessionOutcome) => void {
  return ({ sessionId: _clientChosen, billingBlocked, ...outcome }) => {
    // As an HTTP request's line says it (request-usage.ts): metered, refused at the start, or nothing metered.
    const billing = outcome.meteredSeconds > 0 ? 'metered' : billingBlocked !== null && outcome.audioSeconds === 0 ? 'refused' : 'not_metered';
    log.info({ route: 'realtime', ...outcome, billing, blockReason: billingBlocked ?? undefined }, 'realtime session ended');
  };
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
