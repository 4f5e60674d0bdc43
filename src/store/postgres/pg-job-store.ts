// Transcription jobs in PostgreSQL; behaves as sqlite/sqlite-job-store.ts does (see job-store.ts),
// with the pure parts shared through ../job-record.ts. SQLite has one writer at a time; here many
// API and worker processes write at once (READ COMMITTED), so:
// - a transition that is one conditional UPDATE stays one statement: PostgreSQL re-checks its
//   WHERE against the row as committed by whoever updated it first, so a lost race changes nothing;
// - a transition that reads the row to decide (complete, fail, closing slots, expiring results)
//   reads it `FOR UPDATE`, so a concurrent caller waits and then decides on the new row;
// - claimNext (and claimDecoration) takes the oldest runnable row `FOR UPDATE SKIP LOCKED`: workers
//   claim different jobs in parallel rather than queueing behind one row lock.
// Multi-row locks are taken in id order, so two sweeps over overlapping rows cannot deadlock.
import { leaseOfDeadInstance } from '../instance-record.js';
import {
  DECORATION_CLAIM_ORDER,
  LEASED_WORK,
  RESULT_EXPIRY_SET,
  claimableDecorations,
  claimableJobs,
  uploadDeadlineColumn,
  completionWithoutAccept,
  emptyStatusCounts,
  iso,
  jobRecordOf,
  mayEndDecoration,
  mayFail,
  newJobRow,
  releasedByDecoration,
  releasedByExpiry,
  releasedByFailure,
  type FailError,
  type FailFrom,
  type JobRow,
} from '../job-record.js';
import type { ChunkProgress, CompleteOutcome, DecorationOutcome, JobCounts, FinalResult, JobRecord, JobStore, JobStoreOptions, NewJob, OutboxEvent, PendingDecoration, ReleasedBlobs, Retention } from '../job-store.js';
import type { MeteredWork } from '../usage-record.js';
import type { PostgresDatabase } from './database.js';
import { addReviewRequired, recordUsage } from './pg-usage-ledger.js';

import type { JobStatus } from '../../domain/job-statuses.js';
import type { Queryable } from './queryable.js';
export class PgJobStore implements JobStore {
  private readonly instanceId: string | null;

  constructor(
    private readonly db: PostgresDatabase,
    options: JobStoreOptions = {},
  ) {
    this.instanceId = options.instanceId ?? null;
  }

  async create(job: NewJob, now = new Date()): Promise<JobRecord> {
    const row = newJobRow(job, now);
    // Autocommit: the row is committed when the query returns.
    const { rows } = await this.db.query<JobRow>(
      `INSERT INTO jobs (id, tenant, key_id, status, model, request, audio_path, audio_seconds, webhook_url,
          webhook_secret_version, created_at, updated_at, ready_at_ms, upload_state, upload_bytes,
          upload_expires_at_ms, complete_by_ms, retention_hours)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
        RETURNING *`,
      [
        row.id, row.tenant, row.key_id, row.status, row.model, row.request, row.audio_path, row.audio_seconds, row.webhook_url,
        row.webhook_secret_version, row.created_at, row.updated_at, row.ready_at_ms, row.upload_state, row.upload_bytes,
        row.upload_expires_at_ms, row.complete_by_ms, row.retention_hours,
      ],
    );
    return jobRecordOf(rows[0]);
  }

  async get(id: string, tenant: string): Promise<JobRecord | null> {
    const { rows } = await this.db.query<JobRow>('SELECT * FROM jobs WHERE id = $1 AND tenant = $2', [id, tenant]);
    return rows[0] ? jobRecordOf(rows[0]) : null;
  }

  async getById(id: string): Promise<JobRecord | null> {
    const { rows } = await this.db.query<JobRow>('SELECT * FROM jobs WHERE id = $1', [id]);
    return rows[0] ? jobRecordOf(rows[0]) : null;
  }

  async beginUpload(id: string, nowMs: number, options: { until?: 'form_expiry' | 'complete_by' } = {}): Promise<boolean> {
    return this.changedOne(
      `UPDATE jobs SET upload_state = 'receiving', upload_owner = $3
        WHERE id = $1 AND status = 'awaiting_upload' AND upload_state = 'empty' AND ${uploadDeadlineColumn(options.until)} > $2`,
      [id, nowMs, this.instanceId],
    );
  }

  async abandonUpload(id: string): Promise<void> {
    await this.db.query(`UPDATE jobs SET upload_state = 'empty' WHERE id = $1 AND upload_state = 'receiving'`, [id]);
  }

  async storeUpload(id: string, audioPath: string, nowMs: number): Promise<boolean> {
    return this.changedOne(
      `UPDATE jobs SET upload_state = 'stored', audio_path = $1, updated_at = $2
        WHERE id = $3 AND status = 'awaiting_upload' AND upload_state = 'receiving'`,
      [audioPath, iso(nowMs), id],
    );
  }

  async complete(id: string, tenant: string, nowMs: number): Promise<CompleteOutcome> {
    return this.db.transaction(async (client) => {
      // Locked: of concurrent completes (and an upload sweeper's fail), the later ones see the
      // first one's outcome, as SQLite's IMMEDIATE transaction gives them.
      const { rows } = await client.query<JobRow>('SELECT * FROM jobs WHERE id = $1 AND tenant = $2 FOR UPDATE', [id, tenant]);
      if (!rows[0]) return { outcome: 'not_found' };
      const settled = completionWithoutAccept(rows[0]);
      if (settled) return settled;
      const accepted = await client.query<JobRow>(
        `UPDATE jobs SET status = 'accepted', ready_at_ms = $1, updated_at = $2
          WHERE id = $3 AND status = 'awaiting_upload' AND upload_state = 'stored' RETURNING *`,
        [nowMs, iso(nowMs), id],
      );
      return { outcome: 'accepted', job: jobRecordOf(accepted.rows[0]) };
    });
  }

  async claimNext(workerId: string, nowMs: number, leaseMs: number): Promise<JobRecord | null> {
    // One statement: the subquery locks the row it picks (skipping rows other claimers hold) and the
    // UPDATE leases it before the lock is released at commit. SET reads the row's old values, so
    // the stall count and updated_at decide on the state before this claim, as in SQLite.
    const { rows } = await this.db.query<JobRow>(
      `UPDATE jobs SET status = 'running', lease_owner = $1, lease_expires_at_ms = $2,
          stalled_claims = stalled_claims + (CASE WHEN lease_owner IS NULL THEN 0 ELSE 1 END),
          updated_at = (CASE WHEN status = 'running' THEN updated_at ELSE $3 END)
        WHERE id = (
          SELECT id FROM jobs
            WHERE ${claimableJobs('$4')}
            ORDER BY ready_at_ms, created_at, id LIMIT 1
            FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [workerId, nowMs + leaseMs, iso(nowMs), nowMs],
    );
    return rows[0] ? jobRecordOf(rows[0]) : null;
  }

  async heartbeat(id: string, workerId: string, nowMs: number, leaseMs: number): Promise<boolean> {
    return this.changedOne(`UPDATE jobs SET lease_expires_at_ms = $1 WHERE id = $2 AND ${LEASED_WORK} AND lease_owner = $3`, [
      nowMs + leaseMs,
      id,
      workerId,
    ]);
  }

  async commitChunk(id: string, workerId: string, chunk: ChunkProgress, nowMs: number): Promise<boolean> {
    // Casts: a parameter only compared with NULL has no type PostgreSQL could infer.
    return this.changedOne(
      `UPDATE jobs SET progress = $1, completed_audio_seconds = $2,
          audio_seconds = COALESCE($3::double precision, audio_seconds),
          partial_path = COALESCE($4::text, partial_path),
          result_revision = result_revision + (CASE WHEN $4::text IS NULL THEN 0 ELSE 1 END),
          lease_owner = NULL, lease_expires_at_ms = NULL, stalled_claims = 0, ready_at_ms = $5, updated_at = $6
        WHERE id = $7 AND status = 'running' AND lease_owner = $8`,
      [JSON.stringify(chunk.progress), chunk.completedAudioSeconds, chunk.audioSeconds, chunk.partialPath, nowMs, iso(nowMs), id, workerId],
    );
  }

  // No status condition: a running job's lease and a decoration's are given back alike.
  async releaseLease(id: string, workerId: string, _nowMs: number): Promise<boolean> {
    return this.changedOne('UPDATE jobs SET lease_owner = NULL, lease_expires_at_ms = NULL WHERE id = $1 AND lease_owner = $2', [id, workerId]);
  }

  async succeed(
    id: string,
    workerId: string,
    result: FinalResult,
    retention: Retention,
    nowMs: number,
    event: OutboxEvent | null = null,
    decoration: PendingDecoration | null = null,
    usage: MeteredWork | null = null,
  ): Promise<boolean> {
    // The transition and its event commit together or not at all: an event exists exactly when its
    // job succeeded. A failed insert (say a duplicate) rolls the transition back and rejects.
    // Decorating ($10): the audio and provisional result stay for the decoration (the carry-over $13
    // and the provisional result $12 replaced when given), and the worker keeps its lease on the
    // succeeded row until $11. Casts: parameters only compared with NULL have no inferable type.
    return this.db.transaction(async (client) => {
      const { rowCount } = await client.query(
        `UPDATE jobs SET status = 'succeeded', result_path = $1, result_bytes = $2, result_content_type = $3,
            result_expires_at_ms = $4, tombstone_until_ms = $5, finished_at_ms = $6, updated_at = $7,
            audio_path = (CASE WHEN $10::boolean THEN audio_path ELSE NULL END),
            partial_path = (CASE WHEN $10::boolean THEN COALESCE($12::text, partial_path) ELSE NULL END),
            result_revision = result_revision + (CASE WHEN $10::boolean AND $12::text IS NOT NULL THEN 1 ELSE 0 END),
            progress = (CASE WHEN $10::boolean THEN COALESCE($13::text, progress) ELSE progress END),
            lease_owner = (CASE WHEN $10::boolean THEN lease_owner ELSE NULL END),
            lease_expires_at_ms = (CASE WHEN $10::boolean THEN $11::bigint ELSE NULL END),
            decoration = (CASE WHEN $10::boolean THEN 'processing' ELSE decoration END),
            decoration_attempts = (CASE WHEN $10::boolean THEN 1 ELSE decoration_attempts END)
          WHERE id = $8 AND status = 'running' AND lease_owner = $9`,
        [
          result.resultPath,
          result.resultBytes,
          result.contentType,
          retention.resultExpiresAtMs,
          retention.tombstoneUntilMs,
          nowMs,
          iso(nowMs),
          id,
          workerId,
          decoration !== null,
          decoration ? nowMs + decoration.leaseMs : null,
          decoration?.partialPath ?? null,
          decoration?.progress ? JSON.stringify(decoration.progress) : null,
        ],
      );
      const won = rowCount === 1;
      if (won && event) await recordEvent(client, id, event, nowMs);
      if (won && usage) await recordUsage(client, usage.event, usage.terms);
      return won;
    });
  }

  async claimDecoration(workerId: string, nowMs: number, leaseMs: number): Promise<JobRecord | null> {
    // As claimNext: one statement, the row picked and locked by the subquery (skipping rows other
    // claimers hold) and leased before the lock is released at commit.
    const { rows } = await this.db.query<JobRow>(
      `UPDATE jobs SET lease_owner = $1, lease_expires_at_ms = $2, decoration_attempts = decoration_attempts + 1
        WHERE id = (
          SELECT id FROM jobs
            WHERE ${claimableDecorations('$3')}
            ORDER BY ${DECORATION_CLAIM_ORDER} LIMIT 1
            FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [workerId, nowMs + leaseMs, nowMs],
    );
    return rows[0] ? jobRecordOf(rows[0]) : null;
  }

  async endDecoration(id: string, workerId: string, outcome: DecorationOutcome, nowMs: number): Promise<ReleasedBlobs | null> {
    // Locked, as `fail`: the paths released are those of the row this update replaces.
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<JobRow>('SELECT * FROM jobs WHERE id = $1 FOR UPDATE', [id]);
      if (!rows[0] || !mayEndDecoration(rows[0], workerId)) return null;
      await client.query(
        `UPDATE jobs SET decoration = $1, result_path = $2, result_bytes = $3, result_content_type = $4,
            audio_path = NULL, partial_path = NULL, lease_owner = NULL, lease_expires_at_ms = NULL, updated_at = $5
          WHERE id = $6 AND status = 'succeeded' AND decoration = 'processing' AND lease_owner = $7`,
        [
          outcome.status === 'done' ? null : 'unavailable',
          outcome.result.resultPath,
          outcome.result.resultBytes,
          outcome.result.contentType,
          iso(nowMs),
          id,
          workerId,
        ],
      );
      const review = outcome.reviewRequired;
      if (review && review.passages > 0) await addReviewRequired(client, review.usageEventKey, review.passages);
      return releasedByDecoration(rows[0], outcome.result);
    });
  }

  async fail(id: string, from: FailFrom, error: FailError, retention: Retention, nowMs: number, event: OutboxEvent | null = null): Promise<ReleasedBlobs | null> {
    // As `succeed`: the failure and its event commit together or not at all.
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<JobRow>('SELECT * FROM jobs WHERE id = $1 FOR UPDATE', [id]);
      if (!rows[0] || !mayFail(rows[0], from)) return null;
      const released = await markFailed(client, rows[0], error, retention, nowMs);
      if (event) await recordEvent(client, id, event, nowMs);
      return released;
    });
  }

  async closeUploadSlotsOfKey(
    keyId: string,
    error: FailError,
    retentionOf: (job: JobRecord) => Retention,
    nowMs: number,
  ): Promise<ReleasedBlobs[]> {
    // Unlike `fail` from awaiting_upload, a slot receiving a file is closed too: the upload route
    // sees the job gone from awaiting_upload and discards what it was writing (storeUpload refuses).
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<JobRow>(
        `SELECT * FROM jobs WHERE status = 'awaiting_upload' AND key_id = $1 ORDER BY id FOR UPDATE`,
        [keyId],
      );
      const released: ReleasedBlobs[] = [];
      for (const row of rows) released.push(await markFailed(client, row, error, retentionOf(jobRecordOf(row)), nowMs));
      return released;
    });
  }

  async releaseWorkOfDeadInstances(_nowMs: number): Promise<{ leases: number; uploads: number }> {
    return this.db.transaction(async (client) => {
      const leases = await client.query(`UPDATE jobs SET lease_expires_at_ms = 0
        WHERE lease_owner IS NOT NULL AND ${LEASED_WORK}
          AND (lease_expires_at_ms IS NULL OR lease_expires_at_ms <> 0) AND ${leaseOfDeadInstance('jobs')}`);
      const uploads = await client.query(`UPDATE jobs SET upload_state = 'empty', upload_owner = NULL
        WHERE upload_state = 'receiving'
          AND (upload_owner IS NULL OR NOT EXISTS (SELECT 1 FROM service_instances i WHERE i.id = jobs.upload_owner))`);
      return { leases: leases.rowCount ?? 0, uploads: uploads.rowCount ?? 0 };
    });
  }

  async overdueUploads(nowMs: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(`SELECT id FROM jobs WHERE status = 'awaiting_upload' AND complete_by_ms <= $1`, [nowMs]);
    return rows.map((row) => row.id);
  }

  async expireResults(nowMs: number): Promise<ReleasedBlobs[]> {
    // Locked, so that of two sweepers each result path is handed out for deletion once.
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<Pick<JobRow, 'id' | 'result_path' | 'audio_path' | 'partial_path'>>(
        `SELECT id, result_path, audio_path, partial_path FROM jobs
          WHERE result_expires_at_ms IS NOT NULL AND result_expires_at_ms <= $1 AND result_path IS NOT NULL
          ORDER BY id FOR UPDATE`,
        [nowMs],
      );
      if (rows.length === 0) return [];
      await client.query(`UPDATE jobs SET ${RESULT_EXPIRY_SET} WHERE id = ANY($1::text[])`, [rows.map((row) => row.id)]);
      return rows.map(releasedByExpiry);
    });
  }

  async deleteEndedTombstones(nowMs: number): Promise<number> {
    const { rowCount } = await this.db.query(`DELETE FROM jobs WHERE status IN ('succeeded', 'failed') AND tombstone_until_ms <= $1`, [nowMs]);
    return rowCount ?? 0;
  }

  async referencesBlob(path: string): Promise<boolean> {
    const { rows } = await this.db.query('SELECT 1 FROM jobs WHERE audio_path = $1 OR partial_path = $1 OR result_path = $1 LIMIT 1', [path]);
    return rows.length > 0;
  }

  async jobCounts(nowMs: number): Promise<JobCounts> {
    const byStatus = emptyStatusCounts();
    const { rows } = await this.db.query<{ status: JobStatus; n: number }>('SELECT status, count(*) AS n FROM jobs GROUP BY status');
    for (const row of rows) byStatus[row.status] = row.n;
    const claimable = await this.db.query<{ n: number }>(`SELECT count(*) AS n FROM jobs WHERE ${claimableJobs('$1')}`, [nowMs]);
    return { byStatus, claimable: claimable.rows[0].n };
  }

  private async changedOne(text: string, values: unknown[]): Promise<boolean> {
    return (await this.db.query(text, values)).rowCount === 1;
  }
}

/** Marks a row (locked by the caller) failed; returns the blobs it no longer references. */
/** The outbox row of a job's webhook event, due at once (the first attempt is immediate). */
async function recordEvent(client: Queryable, id: string, event: OutboxEvent, nowMs: number): Promise<void> {
  await client.query(
    `INSERT INTO webhook_deliveries (event_id, job_id, key_id, secret_version, url, body, state, next_attempt_at_ms, created_at_ms)
      VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $7)`,
    [event.eventId, id, event.keyId, event.secretVersion, event.url, event.body, nowMs],
  );
}

async function markFailed(client: Queryable, row: JobRow, error: FailError, retention: Retention, nowMs: number): Promise<ReleasedBlobs> {
  await client.query(
    `UPDATE jobs SET status = 'failed', error_code = $1, error_message = $2,
        audio_path = NULL, partial_path = NULL, lease_owner = NULL, lease_expires_at_ms = NULL,
        upload_state = (CASE WHEN upload_state = 'receiving' THEN 'empty' ELSE upload_state END),
        result_expires_at_ms = $3, tombstone_until_ms = $4, finished_at_ms = $5, updated_at = $6
      WHERE id = $7`,
    [error.code, error.message, retention.resultExpiresAtMs, retention.tombstoneUntilMs, nowMs, iso(nowMs), row.id],
  );
  return releasedByFailure(row);
}
