// The service's configuration: what `svc-stt serve` reads from the environment and an optional
// JSON config file (SVC_CONFIG, flat keys: see load-config.ts), validated at start (see load-config.ts).
import type { ModelId } from '../domain/model-ids.js';
import type { WordAlignment } from '../engine/alignment-heads.js';
import type { KmsSettings } from '../store/kms/kms-settings.js';
import type { S3BucketSettings } from '../store/s3/s3-settings.js';

/** The bucket settings (SVC_S3_*); the process adds its local spool folder itself. */
/** The realtime listener's transports (src/realtime/transport/): `auto` picks uWS.js where it loads. */
export const REALTIME_TRANSPORTS = ['auto', 'uws', 'ws'] as const;
export type RealtimeTransportChoice = (typeof REALTIME_TRANSPORTS)[number];

export type S3StorageConfig = S3BucketSettings;

/**
 * What a process does (`svc-stt serve --role`): `api` accepts, validates and stores requests (and
 * answers inline transcriptions itself: the contract's synchronous 200), `worker` claims and runs
 * jobs and delivers webhooks, `all` (the default) is both in one process.
 */
export const SERVICE_ROLES = ['api', 'worker', 'all'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

export interface ServiceConfig {
  role: ServiceRole;
  dataDir: string;
  /**
   * Where jobs, keys and the webhook outbox live: `url` null (the default) is SQLite in the data
   * folder, for one server; a postgres:// URL lets any number of API and worker processes share them.
   */
  database: { url: string | null };
  /**
   * Where audio and results live: `s3` null (the default) is local disk in the data folder; an
   * S3-compatible bucket lets processes on several machines share them, and presigned uploads go
   * straight to the bucket.
   */
  storage: { s3: S3StorageConfig | null };
  host: string;
  port: number;
  /** A separate listener for /metrics (on `host`); null serves it on the main port with the health routes. */
  metricsPort: number | null;
  /**
   * How many tenants /metrics names in the usage gauges (those with the most audio this period); the
   * others are summed under `_others`. Bounded, so tenants never make unbounded series; 0 (the
   * default) names none, since /metrics needs no key: name them where only operators reach it.
   */
  metricsTenantLabels: number;
  realtimePort: number;
  /** The developer console's own listener (src/console/): its cookies and CSP never mix with the API's. */
  consolePort: number;
  /** Which WebSocket server serves the realtime listener: `auto` (uWS.js where its binary loads, else ws). */
  realtimeTransport: RealtimeTransportChoice;
  /**
   * Shutdown (SIGTERM): how long requests and job chunks in flight may take to finish before they
   * are cut off and their work given back (a webhook attempt in flight ends within its own timeout); `instanceTtlMs`: a process whose heartbeat
   * is older than this is dead and its work is taken over (see src/service/instance-lifecycle.ts);
   * `keyWatchMs`: how often open work (realtime sessions, inline answers) reads its key again, the
   * longest it outlives a revocation or a pause (src/billing/key-standing-watch.ts).
   */
  lifecycle: { drainMs: number; instanceTtlMs: number; keyWatchMs: number };
  /** Model files behind the API's model ids. */
  models: Record<ModelId, string>;
  /** Speech detection (Silero VAD): on by default; `model` is its ggml file (default: the one made at install). */
  vad: { enabled: boolean; model: string };
  /** Audio at or below this many seconds is answered inline (200); above it, a job (202). */
  inlineBoundarySeconds: number;
  /** Longest audio accepted (direct upload: 413 above it; jobs: audio_too_long). */
  maxAudioSeconds: number;
  /** Shortest audio accepted by direct upload (422 below it). */
  minAudioSeconds: number;
  /** Direct-upload size cap in bytes (the contract: exactly 100,000,000). */
  maxUploadBytes: number;
  /** Default result retention for jobs, hours (per key 1 to 72). */
  retentionHours: number;
  /** The engine pool's shape; an unset figure is the engine's default (src/engine/pool-shape.ts). */
  pool: { workers?: number; threadsPerWorker?: number; urgentWorkers?: number; maxQueue: number; keptStatesIdleMs?: number };
  /** Word times: whisper's token timestamps, or DTW over the model's alignment heads (src/engine/alignment-heads.ts). */
  wordAlignment: WordAlignment;
  /** How slowly a request body may arrive: uploads, and every other body the API reads (JSON too). */
  upload: {
    /** No byte received for this long: 408 upload_timeout. */
    idleTimeoutMs: number;
    /** After the grace period, an average rate below this: 408 upload_too_slow. */
    minBytesPerSecond: number;
    minRateGraceMs: number;
  };
  /** Default per-key request rate (requests per minute). */
  rateLimitPerMinute: number;
  /**
   * What one connection may leave unread (src/api/unread-output-guard.ts); `public` applies to routes
   * that need no key (and to unknown paths), `authenticated` to the rest.
   */
  connections: { authenticated: ConnectionLimits; public: ConnectionLimits };
  decodeTimeoutMs: number;
  /** Decoding parameters applied to every request (a token cap is for generated test models). */
  decoding: { beamSize: number; maxTokens: number; temperatureFallback: boolean };
  /**
   * Job processing (see src/jobs/job-runner.ts): seconds of audio per worker claim (the fairness
   * unit, default 300) and how long a presigned upload form stays valid (default 3600 s).
   */
  jobs?: { chunkSeconds?: number; uploadExpirySeconds?: number };
  /**
   * Webhook delivery (src/webhooks/). `masterKey`: base64 of 32 bytes that encrypts signing secrets at
   * rest (default: generated once into DATA_DIR/webhook-master.key, mode 0600). `allowLoopback`:
   * tests only — loopback destinations on any port become reachable (a warning is logged at start).
   * `dnsServers`: resolvers asked for a destination's A/AAAA records (default: the system's).
   * `attemptTimeoutMs`: per attempt (the contract: 10 s). `previousMasterKeys`: master keys being rotated
   * away from (SVC_PREVIOUS_MASTER_KEYS): they open what they sealed, never seal (`svc-stt master-key rotate`).
   * `kms`: AWS KMS keys (SVC_KMS_*) that wrap tenants' data keys in the master key's place; null: none.
   */
  webhooks: {
    masterKey: string | null;
    previousMasterKeys: string[];
    kms: KmsSettings | null;
    allowLoopback: boolean;
    dnsServers: string[] | null;
    attemptTimeoutMs: number;
  };
  /** Public base URL used in poll_url/Location (default http://HOST:PORT). */
  publicBaseUrl: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export interface ConnectionLimits {
  /** Requests a connection may have in progress at once (more than one only by HTTP pipelining). */
  maxPipelinedRequests: number;
  /** Bytes of answers waiting for the client to read them when it sends another request. */
  maxUnreadBytes: number;
  /** How long waiting answers may go without the client taking a byte before the connection closes. */
  unreadTimeoutMs: number;
}

export const DEFAULTS = {
  role: 'all',
  host: '127.0.0.1',
  port: 8080,
  realtimePort: 8081,
  consolePort: 8082,
  realtimeTransport: 'auto',
  metricsTenantLabels: 0,
  lifecycle: { drainMs: 30_000, instanceTtlMs: 30_000, keyWatchMs: 1_000 },
  vad: { enabled: true },
  wordAlignment: 'tokens',
  inlineBoundarySeconds: 60,
  maxAudioSeconds: 7200,
  minAudioSeconds: 1,
  maxUploadBytes: 100_000_000,
  retentionHours: 24,
  upload: { idleTimeoutMs: 30_000, minBytesPerSecond: 16 * 1024, minRateGraceMs: 10_000 },
  rateLimitPerMinute: 600,
  // Public routes get the tightest limits: anyone can send them. Unread bytes are counted when another
  // request arrives, so one large answer to a client that reads it is never refused.
  connections: {
    authenticated: { maxPipelinedRequests: 8, maxUnreadBytes: 1024 * 1024, unreadTimeoutMs: 30_000 },
    public: { maxPipelinedRequests: 2, maxUnreadBytes: 64 * 1024, unreadTimeoutMs: 10_000 },
  },
  decodeTimeoutMs: 10 * 60_000,
  decoding: { beamSize: 1, maxTokens: 0, temperatureFallback: true },
  logLevel: 'info',
} as const;
