// A scaled-out deployment on one machine, for the multi-process test and `bench scaleout`: one
// PostgreSQL database, one S3 bucket (s3rver), one `serve --role api` process and N `serve --role
// worker` processes, each with a data folder of its own (they share nothing but the database and
// the bucket, as on separate machines). Workers can be added and SIGKILLed. With `faultProxies`,
// every process reaches the database and the bucket through a TCP proxy of the test's
// (fault-proxy.ts), so a test can cut either link; the test's own `databaseUrl` stays direct. With
// `webhooks`, the first key has a webhook signing secret (made by `svc-stt webhooks secret create`,
// as an operator would) and loopback receivers are allowed.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { openPostgres } from '../../src/store/postgres/database.js';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { type PostgresServer, sharedPostgres } from './postgres-server.js';
import { type S3TestServer, startS3Server } from './s3-server.js';
import { CLI_ARGS, firstKey, kill, serve, serveEnv, type ServeProcess } from './serve-process.js';

const exec = promisify(execFile);

export interface ScaleOutCluster {
  /** The database, reached directly (not through a proxy): for the test's own checks. */
  databaseUrl: string;
  s3: S3TestServer;
  api: ServeProcess;
  workers: ServeProcess[];
  /** The API key the api process created on its first start. */
  key: string;
  /** The links the processes use, when the cluster was started with `faultProxies`. */
  proxies: { database: FaultProxy; bucket: FaultProxy } | null;
  /** The key's webhook signing secret (whsec_...), when the cluster was started with `webhooks`. */
  webhookSecret: string | null;
  addWorker(): Promise<ServeProcess>;
  /** Another `serve --role api` process on the same database and bucket; `env` adds settings of its own. */
  addApi(env?: Record<string, string>): Promise<ServeProcess>;
  /** SIGKILLs a worker (no drain, no deregistration): what a crash or an OOM kill does. */
  killWorker(worker: ServeProcess): Promise<void>;
  /** Starts a process that was killed again, same role, settings and data folder (a supervisor's restart). */
  restart(killed: ServeProcess): Promise<ServeProcess>;
  /** The process's own data folder (its upload spool is under it). */
  dataDirOf(process: ServeProcess): string;
  close(): Promise<void>;
}

export interface ClusterOptions {
  workers: number;
  /** Settings for every process (model, chunk size, pool shape...). */
  env?: Record<string, string>;
  /** The PostgreSQL server to make the database on (a test that restarts it); else the process's shared one. */
  postgres?: PostgresServer;
  /** Route the processes' database and bucket connections through fault proxies. */
  faultProxies?: boolean;
  /** Give the first key a webhook signing secret and let webhooks reach loopback receivers. */
  webhooks?: boolean;
  /** Settings of the first workers only, by index (a worker whose clock is skewed, say). */
  workerEnv?: ReadonlyArray<Record<string, string>>;
}

export async function startScaleOutCluster(options: ClusterOptions): Promise<ScaleOutCluster> {
  const databaseUrl = await (options.postgres ?? (await sharedPostgres())).createDatabase();
  const s3 = await startS3Server();
  const proxies = options.faultProxies
    ? { database: await startFaultProxy({ port: Number(new URL(databaseUrl).port) }), bucket: await startFaultProxy({ port: s3.port }) }
    : null;
  const viaProxy = (url: string, proxy: FaultProxy | undefined) => {
    if (!proxy) return url;
    const proxied = new URL(url);
    proxied.port = String(proxy.port);
    return proxied.toString().replace(/\/$/, '');
  };
  const folders: string[] = [];
  const processes: ServeProcess[] = [];
  const shared = {
    SVC_DATABASE_URL: viaProxy(databaseUrl, proxies?.database),
    SVC_S3_BUCKET: s3.bucket,
    SVC_S3_ENDPOINT: viaProxy(s3.endpoint, proxies?.bucket),
    SVC_S3_REGION: s3.region,
    SVC_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    SVC_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    // Every process opens the webhook secrets the api sealed: one master key for all.
    SVC_WEBHOOK_MASTER_KEY: randomBytes(32).toString('base64'),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...(options.webhooks ? { SVC_WEBHOOK_ALLOW_LOOPBACK: '1' } : {}),
    ...options.env,
  };
  const started = new Map<ServeProcess, { role: 'api' | 'worker'; dataDir: string; env: Record<string, string> }>();
  const start = async (role: 'api' | 'worker', env: Record<string, string> = {}, folder?: string) => {
    const dataDir = folder ?? (await mkdtemp(join(tmpdir(), `svc-${role}-`)));
    if (!folder) folders.push(dataDir);
    const process_ = await serve(await serveEnv(dataDir, { ...shared, ...env }), ['--role', role]);
    processes.push(process_);
    started.set(process_, { role, dataDir, env });
    return { process: process_, dataDir };
  };
  const startedAs = (process_: ServeProcess) => {
    const how = started.get(process_);
    if (!how) throw new Error('not a process of this cluster');
    return how;
  };
  const stopAll = async () => {
    for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) await kill(p);
    await s3.close();
    await proxies?.database.close();
    await proxies?.bucket.close();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  };
  try {
    const api = await start('api');
    const key = await firstKey(api.dataDir);
    const webhookSecret = options.webhooks ? await createWebhookSecret(databaseUrl, api.dataDir, shared) : null;
    const workers: ServeProcess[] = [];
    for (let i = 0; i < options.workers; i++) workers.push((await start('worker', options.workerEnv?.[i])).process);
    return {
      databaseUrl,
      s3,
      api: api.process,
      workers,
      key,
      proxies,
      webhookSecret,
      addWorker: async () => {
        const worker = (await start('worker')).process;
        workers.push(worker);
        return worker;
      },
      addApi: async (env) => (await start('api', env)).process,
      killWorker: (worker) => kill(worker),
      restart: async (killed) => {
        const { role, dataDir, env } = startedAs(killed);
        return (await start(role, env, dataDir)).process;
      },
      dataDirOf: (process_) => startedAs(process_).dataDir,
      close: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The first key's webhook signing secret, made with the CLI on the cluster's database and master key. */
async function createWebhookSecret(databaseUrl: string, dataDir: string, shared: Record<string, string>): Promise<string> {
  const db = await openPostgres(databaseUrl);
  let keyId: string;
  try {
    keyId = (await db.query<{ id: string }>('SELECT id FROM api_keys')).rows[0]!.id;
  } finally {
    await db.close();
  }
  const env = { ...process.env, ...shared, SVC_DATABASE_URL: databaseUrl, SVC_DATA_DIR: dataDir };
  const { stdout } = await exec(process.execPath, [...CLI_ARGS, 'webhooks', 'secret', 'create', '--key', keyId, '--json'], { env });
  return (JSON.parse(stdout) as { secret: string }).secret;
}
