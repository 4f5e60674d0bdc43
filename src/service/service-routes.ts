// The HTTP routes one process serves: the API's (jobs, transcriptions, usage, models, realtime client
// secrets and the embedded upload target) on roles that serve it, health and metrics on every role.
import type { RoutePlugin } from '../api/app-dependencies.js';
import { healthRoutes } from '../api/routes/health.js';
import { jobRoutes } from '../api/routes/jobs.js';
import { modelRoutes } from '../api/routes/models.js';
import { presignedUploadRoutes } from '../api/routes/presigned-upload.js';
import { realtimeClientSecretRoutes } from '../api/routes/realtime-client-secrets.js';
import { transcriptionRoutes } from '../api/routes/transcriptions.js';
import { usageRoutes } from '../api/routes/usage.js';
import { voiceRoutes } from '../api/routes/voices.js';
import type { TranscribeUploadDeps } from '../application/transcribe-upload-deps.js';
import type { KeyStandingWatch } from '../billing/key-standing-watch.js';
import type { UsageBilling } from '../billing/usage-billing.js';
import type { ServiceConfig } from '../config/service-config.js';
import type { JobEvents } from '../jobs/job-events.js';
import type { JobHousekeeping } from '../jobs/job-housekeeping.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { Stores } from '../store/open-stores.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import { loadUploadSigningSecret } from '../store/upload-signing-secret.js';
import type { createDestinationValidator } from '../webhooks/validate-destination.js';
import { WebhookAdmission } from '../webhooks/webhook-admission.js';
import type { OpenedEngines } from './open-engines.js';
import type { ServiceMetrics } from './service-metrics.js';

type DestinationValidator = ReturnType<typeof createDestinationValidator>;

export interface ServiceRouteParts {
  config: ServiceConfig;
  /** Whether this role serves the API (else health and metrics only). */
  serves: boolean;
  instanceId: string;
  stores: Stores;
  blobs: TenantBlobs;
  queue: JobQueue;
  events: JobEvents;
  housekeeping: JobHousekeeping;
  clock: () => Date;
  engines: OpenedEngines;
  billing: UsageBilling;
  /** Tells work under way that its key was revoked or paused. */
  watch: KeyStandingWatch;
  metrics: ServiceMetrics;
  validateDestination: DestinationValidator;
}

export function serviceRoutes(parts: ServiceRouteParts): RoutePlugin[] {
  const { config, stores, blobs, engines } = parts;
  const routes: RoutePlugin[] = parts.serves ? apiRoutes(parts) : [];
  routes.push(
    healthRoutes({
      role: config.role,
      instance: parts.instanceId,
      checks: {
        database: () => stores.ping(),
        storage: () => blobs.ping(),
        engine: async () => engines.assertOpen(),
      },
      metrics: config.metricsPort === null ? parts.metrics : null,
    }),
  );
  return routes;
}

function apiRoutes(parts: ServiceRouteParts): RoutePlugin[] {
  const { config, stores, blobs, queue, events, clock, engines, billing } = parts;
  const { keys, jobs, idempotency } = stores;
  const uploadSecret = loadUploadSigningSecret(config.dataDir);
  const webhooks = new WebhookAdmission(stores.webhookSecrets, parts.validateDestination, clock);
  const routes: RoutePlugin[] = [
    jobRoutes({
      config,
      jobs,
      blobs,
      idempotency,
      queue,
      events,
      housekeeping: parts.housekeeping,
      uploadSecret,
      clock,
      uploadExpirySeconds: config.jobs?.uploadExpirySeconds,
      webhooks,
      keys,
      billing,
      voices: stores.voices,
    }),
    transcriptionRoutes(transcribeUploadDeps(parts, webhooks)),
    usageRoutes({ ledger: stores.usage, billing, keys }),
    realtimeClientSecretRoutes({ secrets: stores.clientSecrets, billing, clock }),
    voiceRoutes({ config, voices: stores.voices, stages: engines.stages, blobs, decodeTimeoutMs: config.decodeTimeoutMs, clock: () => clock().getTime() }),
    modelRoutes({ files: config.models, builds: engines.modelBuilds, loaded: () => isOpen(engines) }),
  ];
  // The embedded upload target of presigned forms; with S3 the forms post straight to the bucket.
  if (!blobs.directUploads) routes.push(presignedUploadRoutes({ config, jobs, blobs, keys, secret: uploadSecret, clock }));
  return routes;
}

/**
 * What the transcription use case works with, as the API's upload route has it: the console's
 * playground runs uploads through the same deps, so billing and limits are the API's.
 */
export function transcribeUploadDeps(
  parts: Pick<ServiceRouteParts, 'config' | 'stores' | 'blobs' | 'queue' | 'clock' | 'engines' | 'billing' | 'watch' | 'validateDestination'>,
  webhooks = new WebhookAdmission(parts.stores.webhookSecrets, parts.validateDestination, parts.clock),
): TranscribeUploadDeps {
  const { config, stores, blobs, queue, engines, billing } = parts;
  return {
    config,
    engines: engines.engines,
    stages: engines.stages,
    modelBuilds: engines.modelBuilds,
    keys: stores.keys,
    jobs: stores.jobs,
    idempotency: stores.idempotency,
    blobs,
    voices: stores.voices,
    queue,
    webhooks,
    billing,
    watch: parts.watch,
  };
}

function isOpen(engines: OpenedEngines): boolean {
  try {
    engines.assertOpen();
    return true;
  } catch {
    return false;
  }
}
