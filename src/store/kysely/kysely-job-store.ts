// Transcription jobs (see job-store.ts): one implementation for SQLite and PostgreSQL, on Kysely
// (store-db.ts), with the pure decisions on a row in ../job-record.ts. Every statement autocommits
// (SQLite with synchronous=FULL), so a transition that returned is durable. Many API and worker
// processes may write at once (PostgreSQL, READ COMMITTED), so:
// - a transition that is one conditional UPDATE stays one statement: PostgreSQL re-checks its WHERE
//   against the row as committed by whoever updated it first, SQLite runs it under its write lock,
//   so a lost race changes nothing and reports false;
// - claimNext and claimDecoration are one UPDATE ... WHERE id = (the oldest claimable row)
//   RETURNING *; on PostgreSQL the subquery locks the row it picks FOR UPDATE SKIP LOCKED, so
//   workers claim different jobs in parallel rather than queueing behind one row lock, and no job
//   is handed to two workers;
// - a transition that reads the row to decide (complete, fail, ending a decoration, closing slots,
//   expiring results) is an `immediate` transaction: on SQLite under the write lock from its start,
//   on PostgreSQL reading its rows FOR UPDATE, so a concurrent caller waits and then decides on the
//   new row. Multi-row locks are taken in id order, so two sweeps over overlapping rows cannot
//   deadlock.
import { type SelectQueryBuilder, sql } from 'kysely';

import type { JobStatus } from '../../domain/job-statuses.js';
import type { ContentSealer } from '../content-sealer.js';
import {
  completionWithoutAccept,
  emptyStatusCounts,
  type FailError,
  type FailFrom,
  iso,
  jobRecordOf,
  type JobRow,
  mayEndDecoration,
  mayFail,
  newJobRow,
  releasedByDecoration,
  releasedByExpiry,
  uploadDeadlineColumn,
} from '../job-record.js';
import type {
  ChunkProgress,
  CompleteOutcome,
  DecorationOutcome,
  FinalResult,
  JobCounts,
  JobRecord,
  JobStore,
  JobStoreOptions,
  NewJob,
  OutboxEvent,
  PendingDecoration,
  ReleasedBlobs,
  Retention,
} from '../job-store.js';
import type { MeteredWork } from '../usage-record.js';
import { immediate } from './immediate.js';
import { claimableDecorations, claimableJobs, leasedWork, RESULT_EXPIRY_SET } from './job-conditions.js';
import { changedOne, type JobChanges, markFailed, recordEvent, succeededColumns } from './job-writes.js';
import { addReviewRequired, recordUsage } from './kysely-usage-ledger.js';
import { leaseOfDeadInstance } from './lease-of-dead-instance.js';
import { openedJobRow, requestAad, sealProgress } from './sealed-job-columns.js';
import { onPostgresDb } from './store-db.js';
import type { StoreDb, StoreSchema } from './store-schema.js';

type JobIds = SelectQueryBuilder<StoreSchema, 'jobs', { id: string }>;

/** Results expired per statement (see expireResults). */
const EXPIRY_BATCH = 500;

export class KyselyJobStore implements JobStore {
  private readonly instanceId: string | null;
  private readonly postgres: boolean;

  constructor(
    private readonly db: StoreDb,
    /** Seals the request and carry-over columns (sealed-job-columns.ts). */
    private readonly sealer: ContentSealer,
    options: JobStoreOptions = {},
  ) {
    this.instanceId = options.instanceId ?? null;
    this.postgres = onPostgresDb(db);
  }

  async create(job: NewJob, now = new Date()): Promise<JobRecord> {
    const row = newJobRow(job, now);
    row.request = await this.sealer.sealText(row.tenant, requestAad(row.id), row.request);
    return this.recordOf(await this.db.insertInto('jobs').values(row).returningAll().executeTakeFirstOrThrow());
  }

  async get(id: string, tenant: string): Promise<JobRecord | null> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', id).where('tenant', '=', tenant).executeTakeFirst();
    return row ? this.recordOf(row) : null;
  }

  async getById(id: string): Promise<JobRecord | null> {
    const row = await this.selectRow(this.db, id);
    return row ? this.recordOf(row) : null;
  }

  async beginUpload(id: string, nowMs: number, options: { until?: 'form_expiry' | 'complete_by' } = {}): Promise<boolean> {
    return changedOne(
      this.update(id, { upload_state: 'receiving', upload_owner: this.instanceId })
        .where('status', '=', 'awaiting_upload')
        .where('upload_state', '=', 'empty')
        .where(uploadDeadlineColumn(options.until), '>', nowMs),
    );
  }

  async abandonUpload(id: string): Promise<void> {
    await this.db.updateTable('jobs').set({ upload_state: 'empty' }).where('id', '=', id).where('upload_state', '=', 'receiving').execute();
  }

  async storeUpload(id: string, audioPath: string, nowMs: number): Promise<boolean> {
    return changedOne(
      this.update(id, { upload_state: 'stored', audio_path: audioPath, updated_at: iso(nowMs) })
        .where('status', '=', 'awaiting_upload')
        .where('upload_state', '=', 'receiving'),
    );
  }

  async complete(id: string, tenant: string, nowMs: number): Promise<CompleteOutcome> {
    return immediate(this.db, async (trx) => {
      // Locked: of concurrent completes (and an upload sweeper's fail), the later ones see the
      // first one's outcome.
      const row = await trx
        .selectFrom('jobs')
        .selectAll()
        .where('id', '=', id)
        .where('tenant', '=', tenant)
        .$if(this.postgres, (query) => query.forUpdate())
        .executeTakeFirst();
      if (!row) return { outcome: 'not_found' };
      const settled = completionWithoutAccept(await this.opened(row, trx));
      if (settled) return settled;
      const accepted = await trx
        .updateTable('jobs')
        .set({ status: 'accepted', ready_at_ms: nowMs, updated_at: iso(nowMs) })
        .where('id', '=', id)
        .where('status', '=', 'awaiting_upload')
        .where('upload_state', '=', 'stored')
        .returningAll()
        .executeTakeFirstOrThrow();
      return { outcome: 'accepted', job: await this.recordOf(accepted, trx) };
    });
  }

  async claimNext(workerId: string, nowMs: number, leaseMs: number): Promise<JobRecord | null> {
    // SET reads the row's old values, so the stall count and updated_at decide on the state before this claim.
    return this.leaseFirst(
      {
        status: 'running',
        lease_owner: workerId,
        lease_expires_at_ms: nowMs + leaseMs,
        stalled_claims: sql`stalled_claims + (CASE WHEN lease_owner IS NULL THEN 0 ELSE 1 END)`,
        updated_at: sql`CASE WHEN status = 'running' THEN updated_at ELSE ${iso(nowMs)} END`,
      },
      (jobs) =>
        jobs
          .where((eb) => claimableJobs(eb, nowMs))
          .orderBy('ready_at_ms')
          .orderBy('created_at')
          .orderBy('id'),
    );
  }

  async heartbeat(id: string, workerId: string, nowMs: number, leaseMs: number): Promise<boolean> {
    return changedOne(
      this.update(id, { lease_expires_at_ms: nowMs + leaseMs })
        .where(leasedWork)
        .where('lease_owner', '=', workerId),
    );
  }

  async commitChunk(id: string, workerId: string, chunk: ChunkProgress, nowMs: number): Promise<boolean> {
    const tenant = await this.tenantOf(id);
    if (tenant === null) return false;
    // What the chunk does not bring (no audio length yet, no new provisional result) stays as it is.
    const changes: JobChanges = {
      progress: await sealProgress(this.sealer, tenant, id, chunk.progress),
      completed_audio_seconds: chunk.completedAudioSeconds,
      lease_owner: null,
      lease_expires_at_ms: null,
      stalled_claims: 0,
      ready_at_ms: nowMs,
      updated_at: iso(nowMs),
    };
    if (chunk.audioSeconds !== null) changes.audio_seconds = chunk.audioSeconds;
    if (chunk.partialPath !== null) {
      changes.partial_path = chunk.partialPath;
      changes.result_revision = sql`result_revision + 1`;
    }
    if (chunk.unredactedPath !== null && chunk.unredactedPath !== undefined) changes.unredacted_path = chunk.unredactedPath;
    return changedOne(this.update(id, changes).where('status', '=', 'running').where('lease_owner', '=', workerId));
  }

  // No status condition: a running job's lease and a decoration's are given back alike.
  async releaseLease(id: string, workerId: string, _nowMs: number): Promise<boolean> {
    return changedOne(this.update(id, { lease_owner: null, lease_expires_at_ms: null }).where('lease_owner', '=', workerId));
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
    // The transition, its event and its usage commit together or not at all: an event exists
    // exactly when its job succeeded. A failed insert (say a duplicate) rolls the transition back
    // and rejects. The carry-over is sealed first, outside the transaction.
    const tenant = decoration?.progress ? await this.tenantOf(id) : null;
    const progress = tenant !== null && decoration?.progress ? await sealProgress(this.sealer, tenant, id, decoration.progress) : null;
    return immediate(this.db, async (trx) => {
      const { numUpdatedRows } = await trx
        .updateTable('jobs')
        .set(succeededColumns(result, retention, nowMs, decoration, progress))
        .where('id', '=', id)
        .where('status', '=', 'running')
        .where('lease_owner', '=', workerId)
        .executeTakeFirst();
      const won = numUpdatedRows === 1n;
      if (won && event) await recordEvent(trx, id, event, nowMs);
      if (won && usage) await recordUsage(trx, usage.event, usage.terms);
      return won;
    });
  }

  async claimDecoration(workerId: string, nowMs: number, leaseMs: number): Promise<JobRecord | null> {
    // The lease that ran out longest ago (never leased before that) goes first.
    return this.leaseFirst({ lease_owner: workerId, lease_expires_at_ms: nowMs + leaseMs, decoration_attempts: sql`decoration_attempts + 1` }, (jobs) =>
      jobs
        .where((eb) => claimableDecorations(eb, nowMs))
        .orderBy('lease_expires_at_ms', (order) => order.asc().nullsFirst())
        .orderBy('id'),
    );
  }

  async endDecoration(id: string, workerId: string, outcome: DecorationOutcome, nowMs: number): Promise<ReleasedBlobs | null> {
    // Locked, as `fail`: the paths released are those of the row this update replaces.
    return immediate(this.db, async (trx) => {
      const row = await this.selectRow(trx, id, { lock: true });
      if (!row || !mayEndDecoration(row, workerId)) return null;
      await trx
        .updateTable('jobs')
        .set({
          decoration: outcome.status === 'done' ? null : 'unavailable',
          result_path: outcome.result.resultPath,
          result_bytes: outcome.result.resultBytes,
          result_content_type: outcome.result.contentType,
          audio_path: null,
          partial_path: null,
          lease_owner: null,
          lease_expires_at_ms: null,
          updated_at: iso(nowMs),
        })
        .where('id', '=', id)
        .where('status', '=', 'succeeded')
        .where('decoration', '=', 'processing')
        .where('lease_owner', '=', workerId)
        .execute();
      const review = outcome.reviewRequired;
      if (review && review.passages > 0) await addReviewRequired(trx, review.usageEventKey, review.passages);
      return releasedByDecoration(row, outcome.result);
    });
  }

  async fail(
    id: string,
    from: FailFrom,
    error: FailError,
    retention: Retention,
    nowMs: number,
    event: OutboxEvent | null = null,
  ): Promise<ReleasedBlobs | null> {
    // As `succeed`: the failure and its event commit together or not at all.
    return immediate(this.db, async (trx) => {
      const row = await this.selectRow(trx, id, { lock: true });
      if (!row || !mayFail(row, from)) return null;
      const released = await markFailed(trx, row, error, retention, nowMs);
      if (event) await recordEvent(trx, id, event, nowMs);
      return released;
    });
  }

  async closeUploadSlotsOfKey(keyId: string, error: FailError, retentionOf: (job: JobRecord) => Retention, nowMs: number): Promise<ReleasedBlobs[]> {
    // Unlike `fail` from awaiting_upload, a slot receiving a file is closed too: the upload route
    // sees the job gone from awaiting_upload and discards what it was writing (storeUpload refuses).
    return immediate(this.db, async (trx) => {
      const rows = await trx
        .selectFrom('jobs')
        .selectAll()
        .where('status', '=', 'awaiting_upload')
        .where('key_id', '=', keyId)
        .orderBy('id')
        .$if(this.postgres, (query) => query.forUpdate())
        .execute();
      const released: ReleasedBlobs[] = [];
      for (const row of rows) released.push(await markFailed(trx, row, error, retentionOf(await this.recordOf(row, trx)), nowMs));
      return released;
    });
  }

  async releaseWorkOfDeadInstances(_nowMs: number): Promise<{ leases: number; uploads: number }> {
    return immediate(this.db, async (trx) => {
      const leases = await trx
        .updateTable('jobs')
        .set({ lease_expires_at_ms: 0 })
        .where('lease_owner', 'is not', null)
        .where(leasedWork)
        .where((eb) => eb.or([eb('lease_expires_at_ms', 'is', null), eb('lease_expires_at_ms', '<>', 0)]))
        .where(leaseOfDeadInstance('jobs'))
        .executeTakeFirst();
      const uploads = await trx
        .updateTable('jobs')
        .set({ upload_state: 'empty', upload_owner: null })
        .where('upload_state', '=', 'receiving')
        .where((eb) =>
          eb.or([
            eb('upload_owner', 'is', null),
            eb.not(eb.exists(eb.selectFrom('service_instances').select('service_instances.id').whereRef('service_instances.id', '=', 'jobs.upload_owner'))),
          ]),
        )
        .executeTakeFirst();
      return { leases: Number(leases.numUpdatedRows), uploads: Number(uploads.numUpdatedRows) };
    });
  }

  async overdueUploads(nowMs: number): Promise<string[]> {
    const rows = await this.db.selectFrom('jobs').select('id').where('status', '=', 'awaiting_upload').where('complete_by_ms', '<=', nowMs).execute();
    return rows.map((row) => row.id);
  }

  async expireResults(nowMs: number): Promise<ReleasedBlobs[]> {
    // In batches: one statement names at most EXPIRY_BATCH ids (SQLite takes 32,766 parameters and
    // PostgreSQL 65,535 at most, and a backlog after downtime can be larger than either).
    const released: ReleasedBlobs[] = [];
    for (;;) {
      const batch = await this.expireResultBatch(nowMs);
      released.push(...batch);
      if (batch.length < EXPIRY_BATCH) return released;
    }
  }

  private expireResultBatch(nowMs: number): Promise<ReleasedBlobs[]> {
    // Locked, so that of two sweepers each result path is handed out for deletion once.
    return immediate(this.db, async (trx) => {
      const rows = await trx
        .selectFrom('jobs')
        .select(['id', 'result_path', 'redacted_audio_path', 'unredacted_path', 'audio_path', 'partial_path'])
        .where('result_expires_at_ms', 'is not', null)
        .where('result_expires_at_ms', '<=', nowMs)
        .where('result_path', 'is not', null)
        .orderBy('id')
        .limit(EXPIRY_BATCH)
        .$if(this.postgres, (query) => query.forUpdate())
        .execute();
      if (rows.length === 0) return [];
      await trx
        .updateTable('jobs')
        .set(RESULT_EXPIRY_SET)
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
      return rows.map(releasedByExpiry);
    });
  }

  async deleteEndedTombstones(nowMs: number): Promise<number> {
    const { numDeletedRows } = await this.db
      .deleteFrom('jobs')
      .where('status', 'in', ['succeeded', 'failed'])
      .where('tombstone_until_ms', '<=', nowMs)
      .executeTakeFirst();
    // Their events go with them once settled; one still pending (a redelivery) goes on a later pass.
    await this.db
      .deleteFrom('webhook_deliveries')
      .where('state', '<>', 'pending')
      .where((eb) => eb.not(eb.exists(eb.selectFrom('jobs').select('jobs.id').whereRef('jobs.id', '=', 'webhook_deliveries.job_id'))))
      .execute();
    return Number(numDeletedRows);
  }

  async referencesBlob(path: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('jobs')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('audio_path', '=', path),
          eb('partial_path', '=', path),
          eb('result_path', '=', path),
          eb('redacted_audio_path', '=', path),
          eb('unredacted_path', '=', path),
        ]),
      )
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async jobCounts(nowMs: number): Promise<JobCounts> {
    const byStatus = emptyStatusCounts();
    const rows = await this.db
      .selectFrom('jobs')
      .select(['status', sql<number>`count(*)`.as('n')])
      .groupBy('status')
      .execute();
    for (const row of rows) byStatus[row.status as JobStatus] = Number(row.n);
    const claimable = await this.db
      .selectFrom('jobs')
      .select(sql<number>`count(*)`.as('n'))
      .where((eb) => claimableJobs(eb, nowMs))
      .executeTakeFirstOrThrow();
    return { byStatus, claimable: Number(claimable.n) };
  }

  /** Whether any job still points at this audio file (kept for callers of the first version). */
  async referencesAudio(path: string): Promise<boolean> {
    return this.referencesBlob(path);
  }

  /** The row, locked to the end of the transaction on PostgreSQL when `lock` (SQLite's `immediate` holds the write lock). */
  private async selectRow(db: StoreDb, id: string, { lock = false } = {}): Promise<JobRow | undefined> {
    return db
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', id)
      .$if(lock && this.postgres, (query) => query.forUpdate())
      .executeTakeFirst();
  }

  /**
   * A claim: `changes` applied to the first job `pick` orders, in one UPDATE ... WHERE id = (SELECT
   * ... LIMIT 1) RETURNING *. On PostgreSQL the subquery locks the row it picks, skipping rows other
   * claimers hold, and the UPDATE leases it before the lock is released at commit.
   */
  private async leaseFirst(changes: JobChanges, pick: (jobs: JobIds) => JobIds): Promise<JobRecord | null> {
    const row = await this.db
      .updateTable('jobs')
      .set(changes)
      .where('id', '=', (eb) =>
        pick(eb.selectFrom('jobs').select('id'))
          .limit(1)
          .$if(this.postgres, (query) => query.forUpdate().skipLocked()),
      )
      .returningAll()
      .executeTakeFirst();
    return row ? this.recordOf(row) : null;
  }

  /** The record of `row`, its content opened (reading keys through `db`, the caller's transaction where it holds one). */
  private async recordOf(row: JobRow, db: StoreDb = this.db): Promise<JobRecord> {
    return jobRecordOf(await this.opened(row, db));
  }

  private opened(row: JobRow, db: StoreDb): Promise<JobRow> {
    return openedJobRow(db === this.db ? this.sealer : this.sealer.within(db), row);
  }

  private async tenantOf(id: string): Promise<string | null> {
    return (await this.db.selectFrom('jobs').select('tenant').where('id', '=', id).executeTakeFirst())?.tenant ?? null;
  }

  /** An UPDATE of job `id`, for the caller to add its conditions to. */
  private update(id: string, changes: JobChanges) {
    return this.db.updateTable('jobs').set(changes).where('id', '=', id);
  }
}
