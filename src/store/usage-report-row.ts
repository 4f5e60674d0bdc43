// The report queries both ledgers run (sums cast to BIGINT: PostgreSQL sums integers as numeric) and
// their rows mapped to UsageLines and PoolTotals; a standing from the rows both ledgers read for it.
import { USAGE_POOLS, type UsagePool, type UsageRoute } from '../domain/usage-routes.js';
import { type DailyUsage, type PoolTotals, type UsageLine, type UsageStanding } from './usage-record.js';

const sum = (expression: string, as: string) => `CAST(sum(${expression}) AS BIGINT) AS ${as}`;

export const REPORT_SELECT = `SELECT tenant, key_id, route, model, language_family, CAST(count(*) AS BIGINT) AS units,
  ${sum('audio_ms', 'audio_ms')}, ${sum('overage_ms', 'overage_ms')}, ${sum('cost_micros', 'cost_micros')},
  ${sum('audio_ms * diarization', 'diarization_ms')}, ${sum('audio_ms * vocabulary', 'vocabulary_ms')}, ${sum('audio_ms * patterns', 'patterns_ms')},
  ${sum('vocabulary_fallbacks', 'vocabulary_fallbacks')}, ${sum('suspect_insertions', 'suspect_insertions')},
  ${sum('review_required', 'review_required')}, ${sum('unsupported_language', 'unsupported_language')}
  FROM usage_events`;

export const REPORT_GROUPING = 'GROUP BY tenant, key_id, route, model, language_family ORDER BY tenant, key_id, route, model, language_family';

export interface UsageLineRow {
  tenant: string;
  key_id: string;
  route: string;
  model: string;
  language_family: string;
  units: number;
  audio_ms: number;
  overage_ms: number;
  cost_micros: number;
  diarization_ms: number;
  vocabulary_ms: number;
  patterns_ms: number;
  vocabulary_fallbacks: number;
  suspect_insertions: number;
  review_required: number;
  unsupported_language: number;
}

export function usageLineOf(row: UsageLineRow): UsageLine {
  return {
    tenant: row.tenant,
    keyId: row.key_id,
    route: row.route as UsageRoute,
    model: row.model,
    languageFamily: row.language_family,
    units: Number(row.units),
    audioMs: Number(row.audio_ms),
    overageMs: Number(row.overage_ms),
    costMicros: Number(row.cost_micros),
    diarizationMs: Number(row.diarization_ms),
    vocabularyMs: Number(row.vocabulary_ms),
    patternsMs: Number(row.patterns_ms),
    safety: {
      vocabularyFallbacks: Number(row.vocabulary_fallbacks),
      suspectInsertions: Number(row.suspect_insertions),
      reviewRequired: Number(row.review_required),
      unsupportedLanguage: Number(row.unsupported_language),
    },
  };
}

const MS_PER_DAY = 86_400_000;

/** Days are UTC days: whole multiples of 86 400 000 ms since the epoch (integer division on both databases). */
export const DAILY_SELECT = `SELECT tenant, CAST(at_ms / ${MS_PER_DAY} AS BIGINT) AS day, route, pool,
  CAST(count(*) AS BIGINT) AS units, ${sum('audio_ms', 'audio_ms')} FROM usage_events`;

export const DAILY_GROUPING = `GROUP BY tenant, CAST(at_ms / ${MS_PER_DAY} AS BIGINT), route, pool ORDER BY tenant, day, route, pool`;

export interface DailyUsageRow {
  tenant: string;
  /** Days since the epoch. */
  day: number;
  route: string;
  pool: string;
  units: number;
  audio_ms: number;
}

export function dailyUsageOf(row: DailyUsageRow): DailyUsage {
  return {
    tenant: row.tenant,
    day: new Date(Number(row.day) * MS_PER_DAY).toISOString().slice(0, 10),
    route: row.route as UsageRoute,
    pool: row.pool as UsagePool,
    units: Number(row.units),
    audioMs: Number(row.audio_ms),
  };
}

export const POOL_TOTALS_SELECT = 'SELECT tenant, pool, audio_ms, overage_ms, cost_micros FROM usage_pool_totals';
export const POOL_TOTALS_ORDER = 'ORDER BY tenant, pool';

export interface PoolTotalsRow {
  tenant: string;
  pool: string;
  audio_ms: number;
  overage_ms: number;
  cost_micros: number;
}

export function poolTotalsOf(row: PoolTotalsRow): PoolTotals {
  return {
    tenant: row.tenant,
    pool: row.pool as UsagePool,
    audioMs: Number(row.audio_ms),
    overageMs: Number(row.overage_ms),
    costMicros: Number(row.cost_micros),
  };
}

export interface StandingRows {
  /** The tenant's totals of the period, a row per pool that has any. */
  pools: ReadonlyArray<{ pool: string; ms: number }>;
  /** The key's charges this period and ever. */
  cost: { period_cost: number; lifetime_cost: number };
}

export function standingOf({ pools, cost }: StandingRows): UsageStanding {
  const used = (pool: UsagePool) => Number(pools.find((row) => row.pool === pool)?.ms ?? 0);
  return {
    tenantUsedMs: Object.fromEntries(USAGE_POOLS.map((pool) => [pool, used(pool)])) as Record<UsagePool, number>,
    keyPeriodCostMicros: Number(cost.period_cost),
    keyLifetimeCostMicros: Number(cost.lifetime_cost),
  };
}
