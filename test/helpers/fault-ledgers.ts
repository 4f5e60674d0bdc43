// The fault cases' own view of what the service stored, read beside it (never through it): job
// states and failures, usage events, and result objects besides the ones each job's row names. One
// ledger per store pair: PostgreSQL and the bucket (the scaled-out shape), SQLite and the data
// folder's blobs (the embedded default; read-only, so a full disk does not stop it reading). And a
// scaled-out cluster as a fault case's target.
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';

import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';

import { localBlobRoot } from '../../src/store/local-blob-store.js';
import { openPostgres } from '../../src/store/postgres/database.js';
import { databasePath } from '../../src/store/sqlite/database.js';
import type { FaultTarget } from './fault-scenario.js';
import type { S3TestServer } from './s3-server.js';
import type { ScaleOutCluster } from './scale-out-cluster.js';

export interface FaultLedger {
  /** Of the jobs `ids`, how many succeeded and how many ended (succeeded or failed). */
  ended(ids: string[]): Promise<{ succeeded: number; ended: number }>;
  /** Why those that failed failed ('error_code: message'). */
  failures(ids: string[]): Promise<string[]>;
  /** The event key of every job usage event (one per job billed). */
  jobUsageKeys(): Promise<string[]>;
  /** Result objects of those jobs that their rows do not name: provisional or superseded revisions a retried step left. */
  leftoverResults(ids: string[]): Promise<number>;
  /** Of the jobs `ids`, those that succeeded. */
  succeededIds(ids: string[]): Promise<string[]>;
  /** Of the jobs `ids`, how many webhook events are recorded delivered. */
  deliveredWebhooks(ids: string[]): Promise<number>;
  /** SQLite's `PRAGMA integrity_check` ('ok' when sound); null on PostgreSQL. */
  integrity(): Promise<string | null>;
  close(): Promise<void>;
}

const PATH_COLUMNS = 'result_path, partial_path, unredacted_path, redacted_audio_path';

/** Result objects of `ids` among `names` (basenames) that no row's path names. */
function leftovers(ids: string[], names: string[], rows: Array<Record<string, string | null>>): number {
  const kept = new Set(
    rows
      .flatMap((r) => Object.values(r))
      .filter((p) => p !== null)
      .map((p) => basename(p)),
  );
  return ids.reduce((n, id) => n + names.filter((name) => name.startsWith(`${id}.`) && !kept.has(name)).length, 0);
}

export async function postgresLedger(databaseUrl: string, s3: S3TestServer): Promise<FaultLedger> {
  const db = await openPostgres(databaseUrl);
  const bucket = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: s3.credentials });
  return {
    ended: async (ids) =>
      (
        await db.query<{ succeeded: number; ended: number }>(
          `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded, count(*) FILTER (WHERE status IN ('succeeded', 'failed'))::int AS ended
           FROM jobs WHERE id = ANY($1)`,
          [ids],
        )
      ).rows[0],
    failures: async (ids) =>
      (
        await db.query<{ error_code: string; error_message: string }>(`SELECT error_code, error_message FROM jobs WHERE id = ANY($1) AND status = 'failed'`, [
          ids,
        ])
      ).rows.map((r) => `${r.error_code}: ${r.error_message}`),
    jobUsageKeys: async () =>
      (await db.query<{ event_key: string }>('SELECT event_key FROM usage_events WHERE route = $1', ['job'])).rows.map((r) => r.event_key),
    leftoverResults: async (ids) => {
      const listed = (await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'results/' }))).Contents ?? [];
      const rows = await db.query<Record<string, string | null>>(`SELECT ${PATH_COLUMNS} FROM jobs WHERE id = ANY($1)`, [ids]);
      return leftovers(
        ids,
        listed.map((o) => basename(o.Key!)),
        rows.rows,
      );
    },
    succeededIds: async (ids) =>
      (await db.query<{ id: string }>(`SELECT id FROM jobs WHERE id = ANY($1) AND status = 'succeeded'`, [ids])).rows.map((r) => r.id),
    deliveredWebhooks: async (ids) =>
      (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE job_id = ANY($1) AND state = 'delivered'`, [ids])).rows[0]!.n,
    integrity: async () => null,
    close: async () => {
      bucket.destroy();
      await db.close();
    },
  };
}

/** The embedded default's data folder: its SQLite database (opened read-only) and its blobs. */
export async function sqliteLedger(dataDir: string): Promise<FaultLedger> {
  const db = new Database(databasePath(dataDir), { readonly: true, fileMustExist: true });
  const marks = (ids: string[]) => ids.map(() => '?').join(', ');
  return {
    ended: async (ids) =>
      db
        .prepare(
          `SELECT count(CASE WHEN status = 'succeeded' THEN 1 END) AS succeeded, count(CASE WHEN status IN ('succeeded', 'failed') THEN 1 END) AS ended
           FROM jobs WHERE id IN (${marks(ids)})`,
        )
        .get(...ids) as { succeeded: number; ended: number },
    failures: async (ids) =>
      (
        db.prepare(`SELECT error_code, error_message FROM jobs WHERE id IN (${marks(ids)}) AND status = 'failed'`).all(...ids) as Array<{
          error_code: string;
          error_message: string;
        }>
      ).map((r) => `${r.error_code}: ${r.error_message}`),
    jobUsageKeys: async () =>
      (db.prepare('SELECT event_key FROM usage_events WHERE route = ?').all('job') as Array<{ event_key: string }>).map((r) => r.event_key),
    leftoverResults: async (ids) => {
      const names = await readdir(join(localBlobRoot(dataDir), 'results'));
      const rows = db.prepare(`SELECT ${PATH_COLUMNS} FROM jobs WHERE id IN (${marks(ids)})`).all(...ids) as Array<Record<string, string | null>>;
      return leftovers(ids, names, rows);
    },
    succeededIds: async (ids) =>
      (db.prepare(`SELECT id FROM jobs WHERE id IN (${marks(ids)}) AND status = 'succeeded'`).all(...ids) as Array<{ id: string }>).map((r) => r.id),
    deliveredWebhooks: async (ids) =>
      (db.prepare(`SELECT count(*) AS n FROM webhook_deliveries WHERE job_id IN (${marks(ids)}) AND state = 'delivered'`).get(...ids) as { n: number }).n,
    integrity: async () => (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; '),
    close: async () => {
      db.close();
    },
  };
}

/** A scaled-out cluster as a fault case's target: its api process and workers (those added later too). */
export function clusterTarget(cluster: ScaleOutCluster): FaultTarget {
  return {
    api: cluster.api,
    processes: () => [cluster.api, ...cluster.workers],
    key: cluster.key,
    webhookSecret: cluster.webhookSecret,
    openLedger: () => postgresLedger(cluster.databaseUrl, cluster.s3),
  };
}
