// Starts the real service (the engine on a generated model) on a free port in a temporary data
// folder, with extra keys created through the real key store. Its stores are the embedded default
// (SQLite, local disk), or, with SVC_TEST_STORES=postgres+s3 in the test process's environment, a
// fresh database on the test PostgreSQL server and a bucket on an s3rver of its own: the job suites
// run against both pairs (test/scale-out/*.test.ts set it and import them).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

import { loadConfig } from '../../src/config/load-config.js';
import type { ServiceConfig } from '../../src/config/service-config.js';
import { type RunningService, type StartOptions, startService } from '../../src/service/start-service.js';
import type { CreateKeyOptions, KeyPatch } from '../../src/store/key-store.js';
import { openStores, type Stores } from '../../src/store/open-stores.js';
import { loadWebhookMasterKey } from '../../src/webhooks/master-key.js';
import { sharedPostgres } from './postgres-server.js';
import { type S3TestServer, startS3Server } from './s3-server.js';
import { openTestLog } from './test-logs.js';
import { testModelPath } from './test-models.js';

/**
 * For a test of the embedded upload route (its S3-style refusals, its disk): a skip reason on the
 * postgres+s3 pair, where forms post straight to the bucket (test/scale-out/direct-upload.test.ts).
 */
export function embeddedUploadsOnly(): string | false {
  return testStorePair() === 'postgres+s3' ? 'forms post to the bucket here; see test/scale-out/direct-upload.test.ts' : false;
}

/** The store pair test services use: SVC_TEST_STORES=postgres+s3, else the embedded default. */
export function testStorePair(): 'sqlite+local' | 'postgres+s3' {
  return process.env.SVC_TEST_STORES === 'postgres+s3' ? 'postgres+s3' : 'sqlite+local';
}

export interface TestService {
  service: RunningService;
  /** The configuration the service was started with. */
  config: ServiceConfig;
  url: string;
  dataDir: string;
  /** The key the server created on first start (read from the file it wrote); '' when the database had keys. */
  key: string;
  createKey(options?: CreateKeyOptions): Promise<{ key: string; id: string; tenant: string }>;
  updateKey(id: string, patch: KeyPatch): Promise<void>;
  setDictionary(keyId: string, language: string, terms: string[]): Promise<void>;
  /** The service's stores, opened on the same database (keys, jobs, outbox, webhook secrets). */
  stores: Stores;
  /** The s3rver behind the postgres+s3 pair; null on the embedded default. */
  s3: S3TestServer | null;
  /** Uploads left (spooled request bodies, and with S3 direct-upload objects) and job audio blobs, by name. */
  blobFiles(): Promise<{ uploads: string[]; jobs: string[] }>;
  /** Result blobs, by name. */
  resultFiles(): Promise<string[]>;
  close(): Promise<void>;
}

/** What a start with `env` threw (a refused start), or null when it started (and was closed again). */
export function refusedStart(env: Record<string, string>): Promise<unknown> {
  return startTestService(env).then(
    async (started) => {
      await started.close();
      return null;
    },
    (error: unknown) => error,
  );
}

export async function startTestService(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestService> {
  const dataDir = env.SVC_DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'svc-test-')));
  const backing: Record<string, string> = {};
  let s3: S3TestServer | null = null;
  if (testStorePair() === 'postgres+s3' && env.SVC_DATABASE_URL === undefined) {
    backing.SVC_DATABASE_URL = await (await sharedPostgres()).createDatabase();
    s3 = await startS3Server();
    Object.assign(backing, {
      SVC_S3_BUCKET: s3.bucket,
      SVC_S3_ENDPOINT: s3.endpoint,
      SVC_S3_REGION: s3.region,
      SVC_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      SVC_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    });
  }
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_REALTIME_PORT: '0',
    SVC_CONSOLE_PORT: '0',
    SVC_MODEL: await testModelPath('micro'),
    SVC_MAX_TOKENS: '12',
    SVC_TEMPERATURE_FALLBACK: 'false',
    SVC_WORKERS: '1',
    SVC_THREADS_PER_WORKER: '2',
    SVC_LOG_LEVEL: 'silent',
    ...backing,
    ...env,
  });
  // Logs at the service's default level go to a file kept for the log audit (test-logs.ts), if any.
  const log = openTestLog('service');
  const service = await startService(config, { logger: log ? { level: 'info', stream: log } : false, ...options });
  const stores = await openStores({
    instanceId: 'test',
    dataDir,
    databaseUrl: config.database.url,
    webhookMasterKey: () => loadWebhookMasterKey(dataDir, config.webhooks.masterKey),
    kms: config.webhooks.kms,
  });
  const bucket = s3 ? new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: s3.credentials }) : null;
  const objects = async (prefix: string): Promise<string[]> => {
    if (!bucket || !s3) return [];
    const listed = await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
    return (listed.Contents ?? []).map((object) => basename(object.Key!));
  };
  const files = (folder: string) => readdir(join(dataDir, 'blobs', folder)).catch(() => [] as string[]);
  return {
    service,
    config,
    url: service.url,
    dataDir,
    key: service.firstKeyFile === null ? '' : (await readFile(service.firstKeyFile, 'utf8')).trim(),
    stores,
    s3,
    createKey: async (options) => {
      const { key, record } = await stores.keys.create(options);
      return { key, id: record.id, tenant: record.tenant };
    },
    updateKey: async (id, patch) => {
      await stores.keys.update(id, patch);
    },
    setDictionary: (keyId, language, terms) => stores.keys.setDictionary(keyId, language, terms),
    blobFiles: async () => ({
      uploads: [...(await files('uploads')), ...(await objects('uploads/'))],
      jobs: [...(await files('jobs')), ...(await objects('jobs/'))],
    }),
    resultFiles: async () => [...(await files('results')), ...(await objects('results/'))],
    close: async () => {
      await service.close();
      log?.end();
      await stores.close();
      bucket?.destroy();
      await s3?.close();
      if (env.SVC_DATA_DIR === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A multipart request to the transcription route with fetch. */
export async function postTranscription(
  url: string,
  key: string | null,
  fields: Record<string, string>,
  file: { data: Uint8Array; name: string; type?: string } | null,
  headers: Record<string, string> = {},
  path = '/v1/audio/transcriptions',
  signal?: AbortSignal,
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append('file', new Blob([file.data as Uint8Array<ArrayBuffer>], { type: file.type ?? 'application/octet-stream' }), file.name);
  return fetch(`${url}${path}`, {
    method: 'POST',
    body: form,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    ...(signal ? { signal } : {}),
  });
}
