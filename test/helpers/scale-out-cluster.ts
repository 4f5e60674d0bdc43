// A scaled-out deployment on one machine, for the multi-process test and `bench scaleout`: one
// PostgreSQL database, one S3 bucket (s3rver), one `serve --role api` process and N `serve --role
// worker` processes, each with a data folder of its own (they share nothing but the database and
// the bucket, as on separate machines). Workers can be added and SIGKILLed. With `faultProxies`,
// every process reaches the database and the bucket through a TCP proxy of the test's
// (fault-proxy.ts), so a test can cut either link; the test's own `databaseUrl` stays direct.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { type PostgresServer, sharedPostgres } from './postgres-server.js';
import { type S3TestServer, startS3Server } from './s3-server.js';
import { firstKey, kill, serve, serveEnv, type ServeProcess } from './serve-process.js';

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
  addWorker(): Promise<ServeProcess>;
  /** Another `serve --role api` process on the same database and bucket. */
  addApi(): Promise<ServeProcess>;
  /** SIGKILLs a worker (no drain, no deregistration): what a crash or an OOM kill does. */
  killWorker(worker: ServeProcess): Promise<void>;
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
    ...options.env,
  };
  const start = async (role: 'api' | 'worker', own: Record<string, string> = {}) => {
    const dataDir = await mkdtemp(join(tmpdir(), `svc-${role}-`));
    folders.push(dataDir);
    const process_ = await serve(await serveEnv(dataDir, { ...shared, ...own }), ['--role', role]);
    processes.push(process_);
    return { process: process_, dataDir };
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
    const workers: ServeProcess[] = [];
    for (let i = 0; i < options.workers; i++) workers.push((await start('worker', options.workerEnv?.[i])).process);
    return {
      databaseUrl,
      s3,
      api: api.process,
      workers,
      key,
      proxies,
      addWorker: async () => {
        const worker = (await start('worker')).process;
        workers.push(worker);
        return worker;
      },
      addApi: async () => (await start('api')).process,
      killWorker: (worker) => kill(worker),
      close: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
