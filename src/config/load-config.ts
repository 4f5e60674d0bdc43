// `svc-stt serve` configuration: environment variables, then the optional JSON file named by
// SVC_CONFIG (the same settings, flat, each named as its variable without SVC_, camelCase), then DEFAULTS. Every problem is
// collected and thrown together as one ConfigError.
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';

import { EDGE_MODEL, FLAGSHIP_MODEL } from '../domain/model-ids.js';
import { WORD_ALIGNMENTS } from '../engine/alignment-heads.js';
import { isModelPathArgument, resolveModelFile } from '../models/model-paths.js';
import { defaultVadModelPath } from '../models/vad-model-path.js';
import { isKmsKeyId, kmsKeyRegion, type KmsSettings } from '../store/kms/kms-settings.js';
import { s3SettingsProblems } from '../store/s3/s3-settings.js';
import { ConfigError } from './config-error.js';
import { type ConfigFile, readConfigFile } from './config-file.js';
import { type ConnectionLimits, DEFAULTS, REALTIME_TRANSPORTS, type S3StorageConfig, SERVICE_ROLES, type ServiceConfig } from './service-config.js';
import { type SettingName, SettingsReader } from './settings-reader.js';

type Env = Record<string, string | undefined>;

const DEFAULT_DATA_DIR = './data';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const HOST = /^[A-Za-z0-9.:%-]+$/;

/** A setting read from `env`, and in the config file from the same name without `SVC_`, camelCase (SVC_MAX_QUEUE: maxQueue). */
function setting(env: string, formerly?: string): SettingName {
  const [first = '', ...rest] = env.replace(/^SVC_/, '').toLowerCase().split('_');
  const file = first + rest.map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');
  return formerly ? { env, file, formerly } : { env, file };
}

const S = {
  role: setting('SVC_ROLE'),
  metricsPort: setting('SVC_METRICS_PORT'),
  metricsTenantLabels: setting('SVC_METRICS_TENANT_LABELS'),
  drainMs: setting('SVC_DRAIN_MS', 'lifecycle.drainMs'),
  instanceTtlMs: setting('SVC_INSTANCE_TTL_MS', 'lifecycle.instanceTtlMs'),
  keyWatchMs: setting('SVC_KEY_WATCH_MS', 'lifecycle.keyWatchMs'),
  dataDir: setting('SVC_DATA_DIR'),
  s3Bucket: setting('SVC_S3_BUCKET', 'storage.s3.bucket'),
  s3Region: setting('SVC_S3_REGION', 'storage.s3.region'),
  s3Endpoint: setting('SVC_S3_ENDPOINT', 'storage.s3.endpoint'),
  s3PublicEndpoint: setting('SVC_S3_PUBLIC_ENDPOINT', 'storage.s3.publicEndpoint'),
  s3ForcePathStyle: setting('SVC_S3_FORCE_PATH_STYLE', 'storage.s3.forcePathStyle'),
  s3AccessKeyId: setting('SVC_S3_ACCESS_KEY_ID', 'storage.s3.accessKeyId'),
  s3SecretAccessKey: setting('SVC_S3_SECRET_ACCESS_KEY', 'storage.s3.secretAccessKey'),
  s3Prefix: setting('SVC_S3_PREFIX', 'storage.s3.prefix'),
  s3UploadEncryption: setting('SVC_S3_UPLOAD_ENCRYPTION', 'storage.s3.uploadEncryption'),
  databaseUrl: setting('SVC_DATABASE_URL', 'database.url'),
  host: setting('SVC_HOST'),
  port: setting('SVC_PORT'),
  realtimePort: setting('SVC_REALTIME_PORT'),
  consolePort: setting('SVC_CONSOLE_PORT'),
  realtimeTransport: setting('SVC_REALTIME_TRANSPORT'),
  model: setting('SVC_MODEL', 'models.svc-medical-1'),
  edgeModel: setting('SVC_EDGE_MODEL', 'models.svc-medical-edge-1'),
  vad: setting('SVC_VAD', 'vad.enabled'),
  vadModel: setting('SVC_VAD_MODEL', 'vad.model'),
  wordAlignment: setting('SVC_WORD_ALIGNMENT'),
  inlineBoundarySeconds: setting('SVC_INLINE_BOUNDARY_SECONDS'),
  maxAudioSeconds: setting('SVC_MAX_AUDIO_SECONDS'),
  minAudioSeconds: setting('SVC_MIN_AUDIO_SECONDS'),
  maxUploadBytes: { file: 'maxUploadBytes' },
  retentionHours: setting('SVC_RETENTION_HOURS'),
  workers: setting('SVC_WORKERS', 'pool.workers'),
  threadsPerWorker: setting('SVC_THREADS_PER_WORKER', 'pool.threadsPerWorker'),
  maxQueue: setting('SVC_MAX_QUEUE', 'pool.maxQueue'),
  urgentWorkers: setting('SVC_URGENT_WORKERS'),
  keptStatesIdleMs: setting('SVC_KEPT_STATES_IDLE_MS'),
  idleTimeoutMs: setting('SVC_UPLOAD_IDLE_TIMEOUT_MS', 'upload.idleTimeoutMs'),
  minBytesPerSecond: setting('SVC_UPLOAD_MIN_BYTES_PER_SECOND', 'upload.minBytesPerSecond'),
  minRateGraceMs: setting('SVC_UPLOAD_MIN_RATE_GRACE_MS', 'upload.minRateGraceMs'),
  rateLimitPerMinute: setting('SVC_RATE_LIMIT_PER_MINUTE'),
  maxPipelinedRequests: setting('SVC_MAX_PIPELINED_REQUESTS', 'connections.authenticated.maxPipelinedRequests'),
  maxUnreadBytes: setting('SVC_MAX_UNREAD_BYTES', 'connections.authenticated.maxUnreadBytes'),
  unreadTimeoutMs: setting('SVC_UNREAD_TIMEOUT_MS', 'connections.authenticated.unreadTimeoutMs'),
  publicMaxPipelinedRequests: setting('SVC_PUBLIC_MAX_PIPELINED_REQUESTS', 'connections.public.maxPipelinedRequests'),
  publicMaxUnreadBytes: setting('SVC_PUBLIC_MAX_UNREAD_BYTES', 'connections.public.maxUnreadBytes'),
  publicUnreadTimeoutMs: setting('SVC_PUBLIC_UNREAD_TIMEOUT_MS', 'connections.public.unreadTimeoutMs'),
  decodeTimeoutMs: setting('SVC_DECODE_TIMEOUT_MS'),
  beamSize: setting('SVC_BEAM_SIZE', 'decoding.beamSize'),
  maxTokens: setting('SVC_MAX_TOKENS', 'decoding.maxTokens'),
  temperatureFallback: setting('SVC_TEMPERATURE_FALLBACK', 'decoding.temperatureFallback'),
  publicBaseUrl: setting('SVC_PUBLIC_BASE_URL'),
  consoleUrl: setting('SVC_CONSOLE_URL'),
  jobChunkSeconds: setting('SVC_JOB_CHUNK_SECONDS', 'jobs.chunkSeconds'),
  uploadExpirySeconds: setting('SVC_UPLOAD_EXPIRY_SECONDS', 'jobs.uploadExpirySeconds'),
  logLevel: setting('SVC_LOG_LEVEL'),
  webhookMasterKey: setting('SVC_WEBHOOK_MASTER_KEY', 'webhooks.masterKey'),
  previousMasterKeys: setting('SVC_PREVIOUS_MASTER_KEYS'),
  kmsKeyId: setting('SVC_KMS_KEY_ID'),
  kmsPreviousKeyIds: setting('SVC_KMS_PREVIOUS_KEY_IDS'),
  kmsEndpoint: setting('SVC_KMS_ENDPOINT'),
  webhookAllowLoopback: setting('SVC_WEBHOOK_ALLOW_LOOPBACK', 'webhooks.allowLoopback'),
  webhookDnsServers: setting('SVC_WEBHOOK_DNS_SERVERS', 'webhooks.dnsServers'),
  webhookAttemptTimeoutMs: setting('SVC_WEBHOOK_ATTEMPT_TIMEOUT_MS', 'webhooks.attemptTimeoutMs'),
} satisfies Record<string, SettingName>;

/** Every environment variable `svc-stt serve` reads (the container recipe's test checks compose.yaml against it). */
export const SETTING_ENVIRONMENT_NAMES: readonly string[] = Object.values(S).flatMap((name) => ('env' in name && name.env ? [name.env] : []));

const MAX_PORT = 65_535;
const MAX_INT = Number.MAX_SAFE_INTEGER;

export function loadConfig(env: Env = process.env): ServiceConfig {
  const { reader, file } = openReader(env);
  const dataDir = readDataDir(reader);
  const host = reader.text(S.host, DEFAULTS.host, HOST, 'must be a host name or an IP address (without brackets)');
  // Port 0 (any free port) is for tests; the server reports the port it got.
  const port = reader.integer(S.port, DEFAULTS.port, 0, MAX_PORT);
  const realtimePort = reader.integer(S.realtimePort, DEFAULTS.realtimePort, 0, MAX_PORT);
  if (port !== 0 && port === realtimePort) {
    reader.problem(S.realtimePort, `must differ from ${reader.labelOf(S.port)} (both are ${port})`);
  }
  const consolePort = reader.integer(S.consolePort, DEFAULTS.consolePort, 0, MAX_PORT);
  if (consolePort !== 0 && (consolePort === port || consolePort === realtimePort)) {
    reader.problem(S.consolePort, `must differ from the other ports (${consolePort} is taken)`);
  }

  const flagship = readModelFile(reader, env, S.model, FLAGSHIP_MODEL, true);
  const edge = reader.has(S.edgeModel) ? readModelFile(reader, env, S.edgeModel, EDGE_MODEL, false) : flagship;

  const minAudioSeconds = reader.positiveNumber(S.minAudioSeconds, DEFAULTS.minAudioSeconds);
  const inlineBoundarySeconds = reader.positiveNumber(S.inlineBoundarySeconds, DEFAULTS.inlineBoundarySeconds);
  const maxAudioSeconds = reader.positiveNumber(S.maxAudioSeconds, DEFAULTS.maxAudioSeconds);
  if (inlineBoundarySeconds > maxAudioSeconds) {
    reader.problem(S.inlineBoundarySeconds, `(${inlineBoundarySeconds}) must not exceed ${reader.labelOf(S.maxAudioSeconds)} (${maxAudioSeconds})`);
  }
  if (minAudioSeconds > inlineBoundarySeconds) {
    reader.problem(S.minAudioSeconds, `(${minAudioSeconds}) must not exceed ${reader.labelOf(S.inlineBoundarySeconds)} (${inlineBoundarySeconds})`);
  }
  const metricsPort = reader.has(S.metricsPort) ? reader.integer(S.metricsPort, 0, 0, MAX_PORT) : null;
  if (metricsPort !== null && metricsPort !== 0 && (metricsPort === port || metricsPort === realtimePort || metricsPort === consolePort)) {
    reader.problem(S.metricsPort, `must differ from the other ports (${metricsPort} is taken)`);
  }
  const config: ServiceConfig = {
    role: reader.oneOf(S.role, DEFAULTS.role, SERVICE_ROLES),
    dataDir,
    database: { url: readDatabaseUrl(reader) },
    storage: { s3: readS3(reader) },
    host,
    port,
    metricsPort,
    metricsTenantLabels: reader.integer(S.metricsTenantLabels, DEFAULTS.metricsTenantLabels, 0, 1000),
    realtimePort,
    consolePort,
    realtimeTransport: reader.oneOf(S.realtimeTransport, DEFAULTS.realtimeTransport, REALTIME_TRANSPORTS),
    lifecycle: {
      drainMs: reader.integer(S.drainMs, DEFAULTS.lifecycle.drainMs, 0, 3_600_000),
      // Several 5-second heartbeats must fit in it.
      instanceTtlMs: reader.integer(S.instanceTtlMs, DEFAULTS.lifecycle.instanceTtlMs, 3_000, 3_600_000),
      keyWatchMs: reader.integer(S.keyWatchMs, DEFAULTS.lifecycle.keyWatchMs, 50, 60_000),
    },
    models: { [FLAGSHIP_MODEL]: flagship ?? '', [EDGE_MODEL]: edge ?? '' },
    vad: readVad(reader),
    wordAlignment: reader.oneOf(S.wordAlignment, DEFAULTS.wordAlignment, WORD_ALIGNMENTS),
    inlineBoundarySeconds,
    maxAudioSeconds,
    minAudioSeconds,
    maxUploadBytes: reader.integer(S.maxUploadBytes, DEFAULTS.maxUploadBytes, 1, MAX_INT),
    retentionHours: reader.integer(S.retentionHours, DEFAULTS.retentionHours, 1, 72),
    pool: {
      // Unset: the engine's measured default shape for its cores, or its GPU (src/engine/pool-shape.ts).
      ...(reader.has(S.workers) ? { workers: reader.integer(S.workers, 1, 1, 256) } : {}),
      ...(reader.has(S.threadsPerWorker) ? { threadsPerWorker: reader.integer(S.threadsPerWorker, 1, 1, 1024) } : {}),
      ...(reader.has(S.urgentWorkers) ? { urgentWorkers: reader.integer(S.urgentWorkers, 0, 0, 256) } : {}),
      // Unset: the engine's default (src/engine/kept-states.ts).
      ...(reader.has(S.keptStatesIdleMs) ? { keptStatesIdleMs: reader.integer(S.keptStatesIdleMs, 0, 0, MAX_INT) } : {}),
      maxQueue: reader.integer(S.maxQueue, 16, 1, 1_000_000),
    },
    upload: {
      idleTimeoutMs: reader.integer(S.idleTimeoutMs, DEFAULTS.upload.idleTimeoutMs, 1, MAX_INT),
      // 0 turns the minimum-rate rule off (idle timeouts still apply).
      minBytesPerSecond: reader.integer(S.minBytesPerSecond, DEFAULTS.upload.minBytesPerSecond, 0, MAX_INT),
      minRateGraceMs: reader.integer(S.minRateGraceMs, DEFAULTS.upload.minRateGraceMs, 0, MAX_INT),
    },
    rateLimitPerMinute: reader.integer(S.rateLimitPerMinute, DEFAULTS.rateLimitPerMinute, 1, MAX_INT),
    connections: {
      authenticated: readConnectionLimits(reader, DEFAULTS.connections.authenticated, {
        maxPipelinedRequests: S.maxPipelinedRequests,
        maxUnreadBytes: S.maxUnreadBytes,
        unreadTimeoutMs: S.unreadTimeoutMs,
      }),
      public: readConnectionLimits(reader, DEFAULTS.connections.public, {
        maxPipelinedRequests: S.publicMaxPipelinedRequests,
        maxUnreadBytes: S.publicMaxUnreadBytes,
        unreadTimeoutMs: S.publicUnreadTimeoutMs,
      }),
    },
    decodeTimeoutMs: reader.integer(S.decodeTimeoutMs, DEFAULTS.decodeTimeoutMs, 1, MAX_INT),
    decoding: {
      beamSize: reader.integer(S.beamSize, DEFAULTS.decoding.beamSize, 1, 16),
      // 0 means no cap; a cap is for generated test models, which rarely stop on their own.
      maxTokens: reader.integer(S.maxTokens, DEFAULTS.decoding.maxTokens, 0, 1 << 20),
      temperatureFallback: reader.boolean(S.temperatureFallback, DEFAULTS.decoding.temperatureFallback),
    },
    jobs: {
      chunkSeconds: reader.integer(S.jobChunkSeconds, 300, 5, 3600),
      uploadExpirySeconds: reader.integer(S.uploadExpirySeconds, 3600, 60, 7 * 24 * 3600),
    },
    webhooks: {
      masterKey: readWebhookMasterKey(reader),
      previousMasterKeys: readPreviousMasterKeys(reader),
      kms: readKms(reader, env),
      allowLoopback: reader.boolean(S.webhookAllowLoopback, false),
      dnsServers: readDnsServers(reader),
      attemptTimeoutMs: reader.integer(S.webhookAttemptTimeoutMs, 10_000, 100, 60_000),
    },
    publicBaseUrl: readPublicBaseUrl(reader) ?? defaultPublicBaseUrl(host, port),
    logLevel: reader.oneOf(S.logLevel, DEFAULTS.logLevel, LOG_LEVELS),
  };
  if (file) reader.reportUnknownFileSettings();
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return config;
}

/**
 * Only the data folder (SVC_DATA_DIR, else `dataDir` in the SVC_CONFIG file, else ./data), for
 * commands that need the database but not a model (keys, dictionary).
 */
export function loadDataDir(env: Env = process.env): string {
  const { reader } = openReader(env);
  const dataDir = readDataDir(reader);
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return dataDir;
}

/**
 * Only the database setting (SVC_DATABASE_URL, else `database.url` in the SVC_CONFIG file; null: the
 * data folder's SQLite file), for the admin commands, which must work on the server's database.
 */
/**
 * Where people reach the console (SVC_CONSOLE_URL, else http://<host>:<SVC_CONSOLE_PORT>), for the
 * links the admin commands print (a console invite).
 */
export function loadConsoleUrl(env: Env = process.env): string {
  const { reader } = openReader(env);
  const host = reader.text(S.host, DEFAULTS.host, HOST, 'must be a host name or an IP address (without brackets)');
  const port = reader.integer(S.consolePort, DEFAULTS.consolePort, 0, MAX_PORT);
  const url = readPublicBaseUrl(reader, S.consoleUrl) ?? defaultPublicBaseUrl(host, port);
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return url;
}

export function loadDatabaseUrl(env: Env = process.env): string | null {
  const { reader } = openReader(env);
  const url = readDatabaseUrl(reader);
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return url;
}

/** Only the blob storage settings (SVC_S3_*; null: local disk), for the admin commands. */
export function loadS3Settings(env: Env = process.env): S3StorageConfig | null {
  const { reader } = openReader(env);
  const s3 = readS3(reader);
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return s3;
}

/**
 * Only the webhook master key setting (SVC_WEBHOOK_MASTER_KEY, else `webhooks.masterKey` in the
 * SVC_CONFIG file; null: the data folder's generated key), for `webhooks secret`, which must seal
 * secrets under the same key the server opens them with.
 */
export function loadWebhookMasterKeySetting(env: Env = process.env): string | null {
  const { reader } = openReader(env);
  const masterKey = readWebhookMasterKey(reader);
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return masterKey;
}

/**
 * The base URL clients reach the server at when SVC_PUBLIC_BASE_URL is not set. The server should
 * call it again with the bound port when it listened on port 0. A wildcard bind address is not
 * reachable as such, so it is replaced by loopback: set SVC_PUBLIC_BASE_URL behind a proxy or LAN.
 */
export function defaultPublicBaseUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

function openReader(env: Env): { reader: SettingsReader; file: ConfigFile | null } {
  const problems: string[] = [];
  let file: ConfigFile | null = null;
  if (env.SVC_CONFIG) {
    const loaded = readConfigFile(env.SVC_CONFIG);
    if ('problem' in loaded) problems.push(loaded.problem);
    else file = loaded;
  }
  const reader = new SettingsReader(env, file);
  reader.problems.push(...problems);
  return { reader, file };
}

function readDataDir(reader: SettingsReader): string {
  const dataDir = reader.path(S.dataDir) ?? resolve(DEFAULT_DATA_DIR);
  const stats = statSync(dataDir, { throwIfNoEntry: false });
  if (stats && !stats.isDirectory()) reader.problem(S.dataDir, `(${dataDir}) exists and is not a folder`);
  return dataDir;
}

/**
 * A model file path, or a model name as `svc-stt models list` shows it and `transcribe --model` takes
 * it ("base": ggml-base.bin in SVC_MODELS_DIR), by the one rule of src/models/model-paths.ts.
 */
function readModelFile(reader: SettingsReader, env: Env, name: SettingName, modelId: string, required: boolean): string | undefined {
  let isPath = true;
  const path = reader.path(name, (value, baseDir) => {
    isPath = isModelPathArgument(value, baseDir);
    return resolveModelFile(value, baseDir, env);
  });
  if (path === undefined) {
    if (required && !reader.has(name)) {
      reader.problem(name, `is required: the model file for ${modelId} (get one with \`npx svc-stt models download NAME\`)`);
    }
    return undefined;
  }
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) {
    if (isPath) reader.problem(name, `names a model file that does not exist: ${path}`);
    else {
      const model = String(reader.raw(name));
      reader.problem(name, `names model '${model}', which is not downloaded (no file ${path}); get it with: npx svc-stt models download ${model}`);
    }
    return path;
  }
  if (!stats.isFile()) {
    reader.problem(name, `must name a model file, but ${path} is not a file`);
    return path;
  }
  try {
    accessSync(path, constants.R_OK);
  } catch {
    reader.problem(name, `names a model file this process cannot read: ${path}`);
  }
  return path;
}

/**
 * The VAD is on unless the operator turns it off (SVC_VAD=false): a service that cannot tell speech
 * from silence decodes silence and, on real weights, invents text over it. Its model must exist; a
 * corrupt one stops the start when the engines open it.
 */
function readVad(reader: SettingsReader): ServiceConfig['vad'] {
  const enabled = reader.boolean(S.vad, DEFAULTS.vad.enabled);
  const model = reader.path(S.vadModel) ?? defaultVadModelPath();
  if (enabled && !statSync(model, { throwIfNoEntry: false })?.isFile()) {
    reader.problem(
      S.vadModel,
      `names a VAD model that does not exist: ${model} (it is made at install: \`npm rebuild svc-stt\`; ` +
        `or point ${reader.labelOf(S.vadModel)} at a Silero ggml file; ${reader.labelOf(S.vad)}=false runs without speech detection)`,
    );
  }
  return { enabled, model };
}

function readConnectionLimits(reader: SettingsReader, defaults: ConnectionLimits, names: Record<keyof ConnectionLimits, SettingName>): ConnectionLimits {
  return {
    maxPipelinedRequests: reader.integer(names.maxPipelinedRequests, defaults.maxPipelinedRequests, 1, 1024),
    maxUnreadBytes: reader.integer(names.maxUnreadBytes, defaults.maxUnreadBytes, 0, MAX_INT),
    // At least the time a client needs to start reading an answer it waited for.
    unreadTimeoutMs: reader.integer(names.unreadTimeoutMs, defaults.unreadTimeoutMs, 100, MAX_INT),
  };
}

/** A PostgreSQL connection URL selects the PostgreSQL stores; without one, SQLite in the data folder. */
function readDatabaseUrl(reader: SettingsReader): string | null {
  if (!reader.has(S.databaseUrl)) return null;
  const raw = reader.text(S.databaseUrl, '', /\S/, 'must be a postgres:// URL');
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // Reported below without echoing the value: it may hold a password.
  }
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol)) {
    reader.problem(S.databaseUrl, 'must be a postgres://user:password@host:port/database URL');
    return null;
  }
  return raw;
}

/**
 * SVC_S3_BUCKET selects the S3 blob store; the other SVC_S3_* settings are read only with it (and
 * refused without it: they would be silently ignored). The secret is never echoed.
 */
function readS3(reader: SettingsReader): S3StorageConfig | null {
  const others = [S.s3Region, S.s3Endpoint, S.s3PublicEndpoint, S.s3ForcePathStyle, S.s3AccessKeyId, S.s3SecretAccessKey, S.s3Prefix, S.s3UploadEncryption];
  if (!reader.has(S.s3Bucket)) {
    for (const name of others) if (reader.has(name)) reader.problem(name, `has no effect without ${reader.labelOf(S.s3Bucket)}`);
    return null;
  }
  const anything = /^\S+$/;
  const endpoint = reader.has(S.s3Endpoint) ? reader.text(S.s3Endpoint, '', anything, 'must be an http(s) URL') : undefined;
  const publicEndpoint = reader.has(S.s3PublicEndpoint) ? reader.text(S.s3PublicEndpoint, '', anything, 'must be an http(s) URL') : undefined;
  const accessKeyId = reader.has(S.s3AccessKeyId) ? reader.text(S.s3AccessKeyId, '', anything, 'must not be empty or contain spaces') : undefined;
  const hasSecret = reader.has(S.s3SecretAccessKey);
  // Any non-blank value passes here, so the reader never has a reason to quote the secret.
  const secretAccessKey = hasSecret ? reader.text(S.s3SecretAccessKey, '', /\S/, 'must not be blank') : undefined;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    reader.problem(hasSecret ? S.s3SecretAccessKey : S.s3AccessKeyId, `needs ${reader.labelOf(hasSecret ? S.s3AccessKeyId : S.s3SecretAccessKey)} too`);
  }
  const s3: S3StorageConfig = {
    bucket: reader.text(S.s3Bucket, '', anything, 'must be a bucket name'),
    region: reader.text(S.s3Region, 'us-east-1', anything, 'must be a region name'),
    ...(endpoint ? { endpoint } : {}),
    ...(publicEndpoint ? { publicEndpoint } : {}),
    // Self-hosted S3 servers (MinIO, Ceph) answer path-style; AWS itself prefers virtual hosts.
    forcePathStyle: reader.boolean(S.s3ForcePathStyle, endpoint !== undefined),
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
    prefix: reader.has(S.s3Prefix) ? reader.text(S.s3Prefix, '', /^\S*$/, 'must be a key prefix such as svc-stt/') : '',
    // A presigned form's policy requires the bucket's own encryption of what the client posts (AES256:
    // SSE-S3); `none` for servers without it (MinIO without a KMS refuses SSE-S3 requests).
    uploadEncryption: reader.text(S.s3UploadEncryption, 'AES256', /^(?:AES256|none)$/, 'must be AES256 or none') === 'none' ? null : 'AES256',
  };
  // The store's own rules, reported with the rest (the spool folder is the service's to give).
  for (const problem of s3SettingsProblems({ ...s3, spoolDir: '-' })) reader.problems.push(`${reader.labelOf(S.s3Bucket)}: ${problem}`);
  return s3;
}

function readPublicBaseUrl(reader: SettingsReader, which: typeof S.publicBaseUrl = S.publicBaseUrl): string | undefined {
  if (!reader.has(which)) return undefined;
  const raw = reader.text(which, '', /\S/, 'must be an http(s) URL');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    if (raw) reader.problem(which, `must be an absolute http(s) URL (got ${JSON.stringify(raw)})`);
    return undefined;
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.search || url.hash) {
    reader.problem(which, 'must be an http(s) URL without credentials, query or fragment');
    return undefined;
  }
  // poll_url is built as `${publicBaseUrl}/v1/jobs/...`: no trailing slash.
  return url.href.replace(/\/+$/, '');
}

/**
 * The master keys a rotation still knows besides the active one (SVC_PREVIOUS_MASTER_KEYS): each opens
 * what it sealed or wrapped, none seals. Comma-separated base64 of 32 bytes each; empty: none.
 */
export function loadPreviousMasterKeysSetting(env: Env = process.env): string[] {
  const { reader } = openReader(env);
  const keys = readPreviousMasterKeys(reader);
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return keys;
}

function readPreviousMasterKeys(reader: SettingsReader): string[] {
  if (!reader.has(S.previousMasterKeys)) return [];
  const raw = reader.text(S.previousMasterKeys, '', /^[A-Za-z0-9+/=,\s]*$/, 'must be comma-separated base64 keys of 32 bytes each');
  const keys = raw
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
  if (keys.some((key) => !/^[A-Za-z0-9+/]+={0,2}$/.test(key) || Buffer.from(key, 'base64').length !== 32)) {
    reader.problem(S.previousMasterKeys, 'must be comma-separated base64 keys of exactly 32 bytes each (the master keys being rotated away from)');
  }
  return keys;
}

/** Only the AWS KMS settings (SVC_KMS_*; null: local master keys alone), for the admin commands. */
export function loadKmsSettings(env: Env = process.env): KmsSettings | null {
  const { reader } = openReader(env);
  const kms = readKms(reader, env);
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return kms;
}

const KMS_KEY_EXPECTATION = 'must be a KMS key id, key ARN, alias name (alias/...) or alias ARN';

/**
 * SVC_KMS_KEY_ID names the KMS key that wraps new data keys, SVC_KMS_PREVIOUS_KEY_IDS those still
 * unwrapping (either alone: a rotation from KMS back to the local key). One region for all: the
 * ARNs', else AWS_REGION. Credentials are the AWS SDK's own (its default chain), never settings here.
 */
function readKms(reader: SettingsReader, env: Env): KmsSettings | null {
  const keyId = reader.has(S.kmsKeyId) ? reader.text(S.kmsKeyId, '', /\S/, KMS_KEY_EXPECTATION).trim() : null;
  const previousKeyIds = reader.has(S.kmsPreviousKeyIds)
    ? reader
        .text(S.kmsPreviousKeyIds, '', /^[\w:/,\s-]*$/, `must be comma-separated KMS key ids (each ${KMS_KEY_EXPECTATION.replace('must be ', '')})`)
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== '')
    : [];
  if (keyId === null && previousKeyIds.length === 0) {
    if (reader.has(S.kmsEndpoint))
      reader.problem(S.kmsEndpoint, `has no effect without ${reader.labelOf(S.kmsKeyId)} or ${reader.labelOf(S.kmsPreviousKeyIds)}`);
    return null;
  }
  if (keyId !== null && !isKmsKeyId(keyId)) reader.problem(S.kmsKeyId, KMS_KEY_EXPECTATION);
  const badPrevious = previousKeyIds.filter((id) => !isKmsKeyId(id));
  if (badPrevious.length > 0)
    reader.problem(S.kmsPreviousKeyIds, `${KMS_KEY_EXPECTATION.replace('must be', 'holds ids that are not')}: ${badPrevious.join(', ')}`);
  const keyIds = [...(keyId === null ? [] : [keyId]), ...previousKeyIds];
  const arnRegions = [...new Set(keyIds.map(kmsKeyRegion).filter((region) => region !== null))];
  const region = arnRegions[0] ?? env.AWS_REGION ?? '';
  if (arnRegions.length > 1 || (arnRegions.length === 1 && env.AWS_REGION && env.AWS_REGION !== region)) {
    reader.problem(S.kmsKeyId, `and ${reader.labelOf(S.kmsPreviousKeyIds)} must name keys of one region, AWS_REGION's if set (found ${arnRegions.join(', ')})`);
  }
  const idsValid = (keyId === null || isKmsKeyId(keyId)) && badPrevious.length === 0;
  if (region === '' && idsValid) reader.problem(S.kmsKeyId, 'needs a region: give key ARNs, or set AWS_REGION');
  const endpoint = reader.has(S.kmsEndpoint) ? readHttpUrl(reader, S.kmsEndpoint) : undefined;
  return { keyId, previousKeyIds, region, ...(endpoint ? { endpoint } : {}) };
}

/** An http(s) URL without credentials, query or fragment; undefined (and a problem) otherwise. */
function readHttpUrl(reader: SettingsReader, name: SettingName): string | undefined {
  const raw = reader.text(name, '', /\S/, 'must be an http(s) URL');
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // Reported below.
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.search || url.hash) {
    reader.problem(name, 'must be an http(s) URL without credentials, query or fragment');
    return undefined;
  }
  return raw;
}

function readWebhookMasterKey(reader: SettingsReader): string | null {
  if (!reader.has(S.webhookMasterKey)) return null;
  const raw = reader.text(S.webhookMasterKey, '', /^[A-Za-z0-9+/]+={0,2}$/, 'must be base64 of 32 random bytes');
  if (raw && Buffer.from(raw, 'base64').length !== 32) {
    reader.problem(S.webhookMasterKey, 'must be base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)');
  }
  return raw || null;
}

/** Comma-separated `ADDRESS` or `ADDRESS:PORT` (IPv6 as `[ADDRESS]:PORT`), as dns.setServers takes them. */
function readDnsServers(reader: SettingsReader): string[] | null {
  if (!reader.has(S.webhookDnsServers)) return null;
  const raw = reader.text(S.webhookDnsServers, '', /\S/, 'must be a comma-separated list of DNS server addresses');
  const servers = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  const valid = /^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-fA-F:.]+\](:\d{1,5})?|[0-9a-fA-F:]+)$/;
  const bad = servers.find((server) => !valid.test(server));
  if (bad !== undefined) reader.problem(S.webhookDnsServers, `has an entry that is not an IP address (with optional port): ${JSON.stringify(bad)}`);
  return servers.length > 0 ? servers : null;
}
