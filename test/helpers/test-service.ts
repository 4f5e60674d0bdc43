// Starts the real service (SQLite file, local blobs, the engine on a generated model) on a free port
// in a temporary data folder, with extra keys created through the real key store.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { startService, type RunningService, type StartOptions } from '../../src/service/start-service.js';
import { databasePath, openDatabase } from '../../src/store/sqlite/database.js';
import { SqliteKeyStore } from '../../src/store/sqlite/sqlite-key-store.js';
import type { CreateKeyOptions, KeyPatch } from '../../src/store/key-store.js';
import { openTestLog } from './test-logs.js';
import { testModelPath } from './test-models.js';

export interface TestService {
  service: RunningService;
  url: string;
  dataDir: string;
  /** The key the server created on first start (read from the file it wrote); '' when the database had keys. */
  key: string;
  createKey(options?: CreateKeyOptions): Promise<{ key: string; id: string; tenant: string }>;
  updateKey(id: string, patch: KeyPatch): Promise<void>;
  setDictionary(keyId: string, language: string, terms: string[]): Promise<void>;
  /** Files left in the upload and job-audio folders. */
  blobFiles(): Promise<{ uploads: string[]; jobs: string[] }>;
  /** Files in the results folder. */
  resultFiles(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startTestService(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-'));
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_REALTIME_PORT: '0',
    SVC_MODEL: await testModelPath('micro'),
    SVC_MAX_TOKENS: '12',
    SVC_TEMPERATURE_FALLBACK: 'false',
    SVC_WORKERS: '1',
    SVC_THREADS_PER_WORKER: '2',
    SVC_LOG_LEVEL: 'silent',
    ...env,
  });
  // Logs at the service's default level go to a file kept for the log audit (test-logs.ts), if any.
  const log = openTestLog('service');
  const service = await startService(config, { logger: log ? { level: 'info', stream: log } : false, ...options });
  const db = openDatabase(databasePath(dataDir));
  const keys = new SqliteKeyStore(db);
  return {
    service,
    url: service.url,
    dataDir,
    key: service.firstKeyFile === null ? '' : (await readFile(service.firstKeyFile, 'utf8')).trim(),
    createKey: async (options) => {
      const { key, record } = await keys.create(options);
      return { key, id: record.id, tenant: record.tenant };
    },
    updateKey: async (id, patch) => {
      await keys.update(id, patch);
    },
    setDictionary: (keyId, language, terms) => keys.setDictionary(keyId, language, terms),
    blobFiles: async () => ({
      uploads: await readdir(join(dataDir, 'blobs', 'uploads')).catch(() => []),
      jobs: await readdir(join(dataDir, 'blobs', 'jobs')).catch(() => []),
    }),
    resultFiles: () => readdir(join(dataDir, 'blobs', 'results')).catch(() => []),
    close: async () => {
      await service.close();
      log?.end();
      db.close();
      await rm(dataDir, { recursive: true, force: true });
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
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append("file", new Blob([file.data as Uint8Array<ArrayBuffer>], { type: file.type ?? 'application/octet-stream' }), file.name);
  return fetch(`${url}/v1/audio/transcriptions`, {
    method: 'POST',
    body: form,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  });
}
