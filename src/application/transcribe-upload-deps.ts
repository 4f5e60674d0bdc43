// What the transcription use case works with: the engines and their pipeline stages, the stores, the
// job queue, webhook admission and billing.
import type { KeyStandingWatch } from '../billing/key-standing-watch.js';
import type { UsageBilling } from '../billing/usage-billing.js';
import type { ServiceConfig } from '../config/service-config.js';
import type { ModelId } from '../domain/model-ids.js';
import type { Engine } from '../engine/engine.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { PipelineEngines } from '../pipeline/pipeline-engine.js';
import type { IdempotencyStore } from '../store/idempotency-store.js';
import type { JobStore } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { TenantBlobs } from '../store/sealed-blob-store.js';
import type { VoiceProfileStore } from '../store/voice-profile-store.js';
import type { WebhookAdmission } from '../webhooks/webhook-admission.js';

export interface TranscribeUploadDeps {
  config: ServiceConfig;
  engines: Record<ModelId, Engine>;
  /** The pipeline's engine calls per model, VAD included (src/pipeline/pipeline-engine.ts). */
  stages: PipelineEngines;
  modelBuilds: Record<ModelId, string>;
  keys: KeyStore;
  jobs: JobStore;
  idempotency: IdempotencyStore;
  blobs: TenantBlobs;
  /** The tenants' enrolled voices, named by `known_speakers`. */
  voices: Pick<VoiceProfileStore, 'get'>;
  queue: JobQueue;
  /** Request-time webhook rules: the signing secret version a job pins, or a WebhookAdmissionError. */
  webhooks: Pick<WebhookAdmission, 'admit'>;
  /** Decides whether new work is accepted (BillingBlockedError otherwise) and meters inline answers. */
  billing: Pick<UsageBilling, 'requireAllowance' | 'reserve' | 'release' | 'meter'>;
  /** Tells an inline transcription under way that its key was revoked or its usage paused: it stops. */
  watch: Pick<KeyStandingWatch, 'watch'>;
}
