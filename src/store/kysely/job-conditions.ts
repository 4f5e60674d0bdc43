// The conditions and assignments on `jobs` that more than one job-store statement shares, as Kysely
// expressions (the same on SQLite and PostgreSQL). Pure decisions on a row already read stay in
// ../job-record.ts.
import { type Expression, type ExpressionBuilder, type RawBuilder, sql, type SqlBool } from 'kysely';

import type { StoreSchema } from './store-schema.js';

type Jobs = ExpressionBuilder<StoreSchema, 'jobs'>;

/**
 * The rows a worker may claim now: accepted or running, and not leased (or leased past expiry).
 * Shared by claimNext and the queue depth, so the metric counts exactly what workers would take.
 */
export function claimableJobs(eb: Jobs, nowMs: number): Expression<SqlBool> {
  return eb.and([eb('status', 'in', ['accepted', 'running']), eb.or([eb('lease_expires_at_ms', 'is', null), eb('lease_expires_at_ms', '<=', nowMs)])]);
}

/** The decorations a worker may claim now: of a succeeded job whose result is still kept, and not leased (or leased past expiry). */
export function claimableDecorations(eb: Jobs, nowMs: number): Expression<SqlBool> {
  return eb.and([
    eb('status', '=', 'succeeded'),
    eb('decoration', '=', 'processing'),
    eb('result_path', 'is not', null),
    eb.or([eb('lease_owner', 'is', null), eb('lease_expires_at_ms', 'is', null), eb('lease_expires_at_ms', '<=', nowMs)]),
  ]);
}

/** Rows whose lease is a worker's: a running job's, or a succeeded one's being decorated (heartbeats, dead instances). */
export function leasedWork(eb: Jobs): Expression<SqlBool> {
  return eb.or([eb('status', '=', 'running'), eb.and([eb('status', '=', 'succeeded'), eb('decoration', '=', 'processing')])]);
}

/** `column` as it is, or NULL while the row's decoration is pending (SET reads the row's old values). */
function clearedWhileDecorating(column: 'lease_owner' | 'lease_expires_at_ms' | 'decoration'): RawBuilder<never> {
  return sql<never>`CASE WHEN decoration = 'processing' THEN NULL ELSE ${sql.ref(column)} END`;
}

/**
 * The assignments of expireResults: the result goes, and with it its redacted audio, its unredacted transcript and what a decoration still kept; a
 * decoration still pending ends (nothing left to decorate) and its lease with it.
 */
export const RESULT_EXPIRY_SET = {
  result_path: null,
  redacted_audio_path: null,
  unredacted_path: null,
  audio_path: null,
  partial_path: null,
  lease_owner: clearedWhileDecorating('lease_owner'),
  lease_expires_at_ms: clearedWhileDecorating('lease_expires_at_ms'),
  decoration: clearedWhileDecorating('decoration'),
};
