// The server under attack: `svc-stt serve` as a real child process (serve-process.ts) on a fresh
// SQLite data folder and the generated micro model, with the keys the cases present created before
// it starts (so no first-start key is made or printed), a webhook signing secret, and a DNS server
// on loopback that resolves the one webhook host the cases may use to an address where nothing
// listens. Its memory is read from /proc; its data folder can be listed for leftovers.
//
// Memory: V8 frees its heap only when it collects, and nothing asks an idle server to — the same
// server showed anywhere between 223 and 309 MiB after identical idle periods. A heap snapshot
// starts with a full collection, and Node takes one on a signal (--heapsnapshot-signal): that is the
// only way to make another process collect, so RSS is compared after one (collectGarbage). RSS also
// counts what glibc keeps after it is freed, tens of MiB that vary between identical states; the
// snapshot's own objects, summed, say what the heap holds without it.
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import { KyselyKeyStore } from '../../../src/store/kysely/kysely-key-store.js';
import { KyselyWebhookSecretStore } from '../../../src/store/kysely/kysely-webhook-secret-store.js';
import { sqliteStoreDb } from '../../../src/store/kysely/store-db.js';
import { databasePath, openDatabase } from '../../../src/store/sqlite/database.js';
import { loadWebhookMasterKey } from '../../../src/webhooks/master-key.js';
import { startDnsTestServer } from '../../helpers/dns-test-server.js';
import { serve, serveEnv, type ServeProcess } from '../../helpers/serve-process.js';
import { recordCanary } from '../../helpers/test-logs.js';
import { testKeyStore } from '../../helpers/test-sealer.js';
import type { FuzzKeys } from './build-request.js';

export const WEBHOOK_HOST = 'hooks.fuzz.test';
const GC_SIGNAL = 'SIGUSR2';
/** High enough that the fuzzing keys are never rate limited: throughput is not what is tested. */
const UNLIMITED_PER_MINUTE = 1_000_000;

export interface AdversarialServer {
  url: string;
  /** host:port, for Host headers. */
  host: string;
  pid: number;
  dataDir: string;
  keys: FuzzKeys;
  webhookUrl: string;
  process: ServeProcess;
  alive(): boolean;
  /** Resident set size now (VmRSS), bytes. */
  rssBytes(): number;
  /**
   * Makes the server run a full garbage collection (by taking a heap snapshot, then deleting it).
   * Resolves with what the collected heap still holds, bytes: the snapshot's objects' own sizes summed
   * (array buffers' contents are objects of the snapshot too). Unlike RSS, no allocator keeps any of it.
   */
  collectGarbage(): Promise<number>;
  /** Every file under the data folder, relative to it. */
  dataFiles(): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startAdversarialServer(env: Record<string, string> = {}): Promise<AdversarialServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-adversarial-'));
  const keys = await prepareKeys(dataDir);
  const dns = await startDnsTestServer({ [WEBHOOK_HOST]: { A: ['127.0.0.1'] } });
  const webhookUrl = `https://${WEBHOOK_HOST}:${await closedPort()}/hook`;
  const snapshotDir = await mkdtemp(join(tmpdir(), 'svc-adversarial-heap-'));
  const cleanup = async () => {
    await dns.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(snapshotDir, { recursive: true, force: true });
  };
  let process_: ServeProcess;
  try {
    process_ = await serve(
      await serveEnv(dataDir, {
        // The most a deployment would log: what the log audit then reads.
        SVC_LOG_LEVEL: 'debug',
        SVC_WEBHOOK_ALLOW_LOOPBACK: '1',
        SVC_WEBHOOK_DNS_SERVERS: dns.servers.join(','),
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --heapsnapshot-signal=${GC_SIGNAL} --diagnostic-dir=${snapshotDir}`.trim(),
        ...env,
      }),
    );
  } catch (error) {
    await cleanup();
    throw error;
  }
  const pid = process_.child.pid!;
  return {
    url: process_.url,
    host: new URL(process_.url).host,
    pid,
    dataDir,
    keys,
    webhookUrl,
    process: process_,
    alive: () => process_.child.exitCode === null && process_.child.signalCode === null,
    rssBytes: () => rssOf(pid),
    collectGarbage: async () => {
      const before = (await readdir(snapshotDir)).length;
      process_.child.kill(GC_SIGNAL);
      // The snapshot is written on the server's main thread: once a file is there and a request
      // is answered again, it is complete.
      for (let i = 0; i < 600 && (await readdir(snapshotDir)).length === before; i++) await sleep(50);
      await fetch(`${process_.url}/v1/openapi.json`).then((r) => r.arrayBuffer());
      const files = await readdir(snapshotDir);
      const live = files.length === 1 ? liveHeapBytes(await readFile(join(snapshotDir, files[0]), 'utf8')) : null;
      for (const file of files) await rm(join(snapshotDir, file), { force: true });
      if (live === null) throw new Error(`expected one heap snapshot, found ${files.length}`);
      return live;
    },
    dataFiles: () => listFiles(dataDir),
    stop: async () => {
      if (process_.child.exitCode === null && process_.child.signalCode === null) {
        process_.child.kill('SIGTERM');
        await process_.exited;
      }
      await cleanup();
    },
  };
}

async function prepareKeys(dataDir: string): Promise<FuzzKeys> {
  const db = openDatabase(databasePath(dataDir));
  try {
    const store = testKeyStore(sqliteStoreDb(db));
    const make = (options: Parameters<KyselyKeyStore['create']>[0] = {}) => store.create({ rateLimitPerMinute: UNLIMITED_PER_MINUTE, ...options });
    const valid = await make();
    const revoked = await make();
    await store.revoke(revoked.record.id);
    const paused = await make();
    await store.update(paused.record.id, { billingState: 'paused' });
    const keys: FuzzKeys = {
      valid: valid.key,
      otherTenant: (await make()).key,
      revoked: revoked.key,
      paused: paused.key,
      noDetection: (await make({ entitlements: [] })).key,
    };
    const secrets = new KyselyWebhookSecretStore(sqliteStoreDb(db), loadWebhookMasterKey(dataDir, null));
    recordCanary('webhook_secret', (await secrets.create(valid.record.id, Date.now())).secret);
    for (const key of Object.values(keys)) recordCanary('api_key', key);
    return keys;
  } finally {
    db.close();
  }
}

/** A loopback port with nothing listening on it (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The sum of the self sizes of a V8 heap snapshot's nodes (its JSON text). */
export function liveHeapBytes(snapshotJson: string): number {
  const { snapshot, nodes } = JSON.parse(snapshotJson) as { snapshot: { meta: { node_fields: string[] } }; nodes: number[] };
  const fields = snapshot.meta.node_fields.length;
  const selfSize = snapshot.meta.node_fields.indexOf('self_size');
  if (selfSize < 0) throw new Error('heap snapshot without self_size');
  let total = 0;
  for (let i = selfSize; i < nodes.length; i += fields) total += nodes[i];
  return total;
}

function rssOf(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}
