// The writes of the job store's transitions (kysely-job-store.ts) that are more than a line of it:
// the columns a success sets, the outbox row a transition's event adds, a row marked failed. Each
// runs on the handle it is given, inside the caller's transaction where it has one.
import { sql, type UpdateObject, type UpdateResult } from 'kysely';

import { type FailError, iso, type JobRow, releasedByFailure } from '../job-record.js';
import type { FinalResult, OutboxEvent, PendingDecoration, ReleasedBlobs, Retention } from '../job-store.js';
import type { StoreDb, StoreSchema } from './store-schema.js';

export type JobChanges = UpdateObject<StoreSchema, 'jobs'>;

/** Whether a conditional UPDATE of one job changed it (false: the row had moved on, a lost race). */
export async function changedOne(query: { executeTakeFirst(): Promise<UpdateResult> }): Promise<boolean> {
  return (await query.executeTakeFirst()).numUpdatedRows === 1n;
}

/**
 * The columns a success writes: the result and its retention, and either the decoration's lease
 * (decoratingColumns) or, with nothing left to do, no lease and no audio or provisional result.
 */
export function succeededColumns(
  result: FinalResult,
  retention: Retention,
  nowMs: number,
  decoration: PendingDecoration | null,
  /** The decoration's carry-over, sealed (sealed-job-columns.ts); null keeps the row's. */
  sealedProgress: string | null,
): JobChanges {
  const rest: JobChanges = decoration
    ? decoratingColumns(decoration, nowMs, sealedProgress)
    : { audio_path: null, partial_path: null, lease_owner: null, lease_expires_at_ms: null };
  return {
    ...rest,
    status: 'succeeded',
    result_path: result.resultPath,
    redacted_audio_path: result.redactedAudioPath ?? null,
    unredacted_path: result.unredactedPath ?? null,
    result_bytes: result.resultBytes,
    result_content_type: result.contentType,
    result_expires_at_ms: retention.resultExpiresAtMs,
    tombstone_until_ms: retention.tombstoneUntilMs,
    finished_at_ms: nowMs,
    updated_at: iso(nowMs),
  };
}

/**
 * A success that leaves a decoration to do: the audio and provisional result stay for it (the
 * carry-over and the provisional result replaced when given), and the worker keeps its lease on
 * the succeeded row until the decoration's lease runs out.
 */
function decoratingColumns(decoration: PendingDecoration, nowMs: number, sealedProgress: string | null): JobChanges {
  const changes: JobChanges = { lease_expires_at_ms: nowMs + decoration.leaseMs, decoration: 'processing', decoration_attempts: 1 };
  if (decoration.partialPath !== null && decoration.partialPath !== undefined) {
    changes.partial_path = decoration.partialPath;
    changes.result_revision = sql`result_revision + 1`;
  }
  if (sealedProgress !== null) changes.progress = sealedProgress;
  return changes;
}

/** The outbox row of a job's webhook event, due at once (the first attempt is immediate). */
export async function recordEvent(trx: StoreDb, id: string, event: OutboxEvent, nowMs: number): Promise<void> {
  await trx
    .insertInto('webhook_deliveries')
    .values({
      event_id: event.eventId,
      job_id: id,
      key_id: event.keyId,
      secret_version: event.secretVersion,
      url: event.url,
      body: event.body,
      state: 'pending',
      next_attempt_at_ms: nowMs,
      created_at_ms: nowMs,
    })
    .execute();
}

/** Marks a row (read, and locked on PostgreSQL, by the caller) failed; returns the blobs it no longer references. */
export async function markFailed(trx: StoreDb, row: JobRow, error: FailError, retention: Retention, nowMs: number): Promise<ReleasedBlobs> {
  await trx
    .updateTable('jobs')
    .set({
      status: 'failed',
      error_code: error.code,
      error_message: error.message,
      audio_path: null,
      partial_path: null,
      unredacted_path: null,
      lease_owner: null,
      lease_expires_at_ms: null,
      upload_state: sql`CASE WHEN upload_state = 'receiving' THEN 'empty' ELSE upload_state END`,
      result_expires_at_ms: retention.resultExpiresAtMs,
      tombstone_until_ms: retention.tombstoneUntilMs,
      finished_at_ms: nowMs,
      updated_at: iso(nowMs),
    })
    .where('id', '=', row.id)
    .execute();
  return releasedByFailure(row);
}
