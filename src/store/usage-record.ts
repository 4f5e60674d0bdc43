// What the usage ledger records: one row per unit of work done (an inline request, a job, a slice
// of a realtime session), counters only. No content, no file names, no text, no language tags
// beyond the family: the contract's "operational telemetry stores only non-content usage and
// safety counters". The pure half of a UsageLedger, shared by its implementations.
import { poolOf, type UsagePool, type UsageRoute } from '../domain/usage-routes.js';

/** The family recorded for audio with no speech or several languages. */
export const USAGE_FAMILY_NONE = 'und';
export const USAGE_FAMILY_MIXED = 'mixed';

/** Safety counters of one unit of work. */
export interface SafetyCounters {
  /** Vocabulary prompts dropped by the safety check (stretches decoded again without them). */
  vocabularyFallbacks: number;
  suspectInsertions: number;
  /** Passages marked review_required (speakers beyond the ceiling, or a decoration given up). */
  reviewRequired: number;
  /** Work refused or failed because the language spoken is not supported. */
  unsupportedLanguage: number;
}

export const NO_SAFETY_EVENTS: SafetyCounters = { vocabularyFallbacks: 0, suspectInsertions: 0, reviewRequired: 0, unsupportedLanguage: 0 };

export interface UsageEvent {
  /** Unique per unit of work ('job:<id>', 'inline:<request id>', 'realtime:<session>:<slice>'): recording it twice is a no-op. */
  eventKey: string;
  tenant: string;
  keyId: string;
  /** The billing period ('YYYY-MM', the month the period starts in). */
  period: string;
  atMs: number;
  route: UsageRoute;
  model: string;
  /** A language family, USAGE_FAMILY_MIXED or USAGE_FAMILY_NONE. */
  languageFamily: string;
  diarization: boolean;
  vocabulary: boolean;
  patterns: boolean;
  audioMs: number;
  safety: SafetyCounters;
}

/** What a pool's allowance and price are for the key doing the work (see src/billing/billing-terms.ts). */
export interface PoolTerms {
  /** Audio included per period, shared by the tenant's keys; null: unlimited. */
  includedMs: number | null;
  /** Millionths of a currency unit per audio-hour beyond the allowance; null: no overage is sold (work is refused there). */
  priceMicrosPerHour: number | null;
}

/** A recorded event with what it cost: the part of it beyond the tenant's allowance, priced. */
export interface MeteredCharge {
  overageMs: number;
  costMicros: number;
}

const MS_PER_HOUR = 3_600_000;

/**
 * The charge of `audioMs` more when the tenant's pool has used `usedMs` this period: only the part
 * beyond the allowance, at the key's price (an event straddling the allowance pays for its tail).
 */
export function chargeOf(usedMs: number, audioMs: number, terms: PoolTerms): MeteredCharge {
  if (terms.includedMs === null) return { overageMs: 0, costMicros: 0 };
  const overageMs = Math.max(0, usedMs + audioMs - terms.includedMs) - Math.max(0, usedMs - terms.includedMs);
  const costMicros = terms.priceMicrosPerHour === null ? 0 : Math.round((overageMs * terms.priceMicrosPerHour) / MS_PER_HOUR);
  return { overageMs, costMicros };
}

/** A row of `usage_events` (both stores write the same columns). */
export interface UsageEventRow {
  event_key: string;
  tenant: string;
  key_id: string;
  period: string;
  at_ms: number;
  route: string;
  pool: string;
  model: string;
  language_family: string;
  diarization: number;
  vocabulary: number;
  patterns: number;
  audio_ms: number;
  overage_ms: number;
  cost_micros: number;
  vocabulary_fallbacks: number;
  suspect_insertions: number;
  review_required: number;
  unsupported_language: number;
}

export const USAGE_EVENT_COLUMNS = [
  'event_key',
  'tenant',
  'key_id',
  'period',
  'at_ms',
  'route',
  'pool',
  'model',
  'language_family',
  'diarization',
  'vocabulary',
  'patterns',
  'audio_ms',
  'overage_ms',
  'cost_micros',
  'vocabulary_fallbacks',
  'suspect_insertions',
  'review_required',
  'unsupported_language',
] as const satisfies readonly (keyof UsageEventRow)[];

export function usageEventRow(event: UsageEvent, charge: MeteredCharge): UsageEventRow {
  return {
    event_key: event.eventKey,
    tenant: event.tenant,
    key_id: event.keyId,
    period: event.period,
    at_ms: event.atMs,
    route: event.route,
    pool: poolOf(event.route),
    model: event.model,
    language_family: event.languageFamily,
    diarization: event.diarization ? 1 : 0,
    vocabulary: event.vocabulary ? 1 : 0,
    patterns: event.patterns ? 1 : 0,
    audio_ms: Math.round(event.audioMs),
    overage_ms: Math.round(charge.overageMs),
    cost_micros: charge.costMicros,
    vocabulary_fallbacks: event.safety.vocabularyFallbacks,
    suspect_insertions: event.safety.suspectInsertions,
    review_required: event.safety.reviewRequired,
    unsupported_language: event.safety.unsupportedLanguage,
  };
}

/** Where a key stands in a period: what decides whether more work is accepted. */
export interface UsageStanding {
  /** Audio the tenant's keys used this period, per pool. */
  tenantUsedMs: Record<UsagePool, number>;
  /** What the key was charged this period (for its spend cap). */
  keyPeriodCostMicros: number;
  /** What the key was charged ever (drawn from its prepaid credit). */
  keyLifetimeCostMicros: number;
}

/** A tenant's totals in one pool for a period. */
export interface PoolTotals {
  tenant: string;
  pool: UsagePool;
  audioMs: number;
  overageMs: number;
  costMicros: number;
}

/** One line of a usage report: a key's work in a period by route, model and language family. */
export interface UsageLine {
  tenant: string;
  keyId: string;
  route: UsageRoute;
  model: string;
  languageFamily: string;
  units: number;
  audioMs: number;
  overageMs: number;
  costMicros: number;
  diarizationMs: number;
  vocabularyMs: number;
  patternsMs: number;
  safety: SafetyCounters;
}

/** A tenant's audio on one UTC day, by route and pool (the chart of a period's use). */
export interface DailyUsage {
  tenant: string;
  /** The UTC day, 'YYYY-MM-DD'. */
  day: string;
  route: UsageRoute;
  pool: UsagePool;
  units: number;
  audioMs: number;
}

export interface UsageQuery {
  period: string;
  /** One tenant's lines only. */
  tenant?: string;
}

/** An event to record and the terms it is charged under (what JobStore.succeed records with a job's success). */
export interface MeteredWork {
  event: UsageEvent;
  terms: PoolTerms;
}
