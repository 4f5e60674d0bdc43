// The usage report as JSON (the CLI's --json and GET /v1/usage): snake_case, audio in seconds (to
// the millisecond, so it reconciles with the work to the second) and hours, money in currency units,
// null where a term is unlimited or absent. The CLI's table and CSV are drawn from the same object.
import type { BillingTerms } from '../store/billing-settings-store.js';
import type { SafetyCounters, UsageLine } from '../store/usage-record.js';
import { MICROS_PER_UNIT, MS_PER_HOUR } from './billing-terms.js';
import type { KeyUsage, TenantUsage, UsageReport } from './usage-report.js';

const secondsOf = (ms: number) => ms / 1000;
const hoursOf = (ms: number | null) => (ms === null ? null : ms / MS_PER_HOUR);
const unitsOf = (micros: number | null) => (micros === null ? null : micros / MICROS_PER_UNIT);
const isoOf = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function termsJson(terms: Partial<BillingTerms>) {
  const out: Record<string, number | null> = {};
  if (terms.batchIncludedMs !== undefined) out.batch_included_hours = hoursOf(terms.batchIncludedMs);
  if (terms.realtimeIncludedMs !== undefined) out.realtime_included_hours = hoursOf(terms.realtimeIncludedMs);
  if (terms.batchPriceMicros !== undefined) out.batch_price_per_hour = unitsOf(terms.batchPriceMicros);
  if (terms.realtimePriceMicros !== undefined) out.realtime_price_per_hour = unitsOf(terms.realtimePriceMicros);
  if (terms.spendCapMicros !== undefined) out.spend_cap = unitsOf(terms.spendCapMicros);
  if (terms.realtimeSessionMaxMs !== undefined) out.realtime_session_max_hours = hoursOf(terms.realtimeSessionMaxMs);
  return out;
}

function safetyJson(safety: SafetyCounters) {
  return {
    vocabulary_fallbacks: safety.vocabularyFallbacks,
    suspect_insertions: safety.suspectInsertions,
    review_required: safety.reviewRequired,
    unsupported_language: safety.unsupportedLanguage,
  };
}

export function lineJson(line: UsageLine) {
  return {
    route: line.route,
    model: line.model,
    language_family: line.languageFamily,
    units: line.units,
    audio_seconds: secondsOf(line.audioMs),
    audio_hours: hoursOf(line.audioMs),
    overage_hours: hoursOf(line.overageMs),
    cost: unitsOf(line.costMicros),
    diarization_seconds: secondsOf(line.diarizationMs),
    vocabulary_seconds: secondsOf(line.vocabularyMs),
    patterns_seconds: secondsOf(line.patternsMs),
    safety: safetyJson(line.safety),
  };
}

function keyJson(usage: KeyUsage) {
  return {
    id: usage.key.id,
    plan: usage.key.plan,
    billing_state: usage.key.billingState,
    revoked: usage.key.revokedAt !== null,
    terms: termsJson(usage.terms),
    batch_seconds: secondsOf(usage.audioMs.batch),
    realtime_seconds: secondsOf(usage.audioMs.realtime),
    overage_hours: hoursOf(usage.overageMs),
    cost: unitsOf(usage.costMicros),
    credit_left: unitsOf(usage.creditLeftMicros),
    blocked: {
      batch: usage.blocked.batch === null ? null : { reason: usage.blocked.batch, resets_at: isoOf(usage.resetsAtMs.batch) },
      realtime: usage.blocked.realtime === null ? null : { reason: usage.blocked.realtime, resets_at: isoOf(usage.resetsAtMs.realtime) },
    },
    lines: usage.lines.map(lineJson),
  };
}

export function tenantJson(tenant: TenantUsage) {
  return {
    tenant: tenant.tenant,
    batch_seconds: secondsOf(tenant.usedMs.batch),
    realtime_seconds: secondsOf(tenant.usedMs.realtime),
    keys: tenant.keys.map(keyJson),
  };
}

export function usageReportJson(report: UsageReport) {
  return {
    object: 'usage',
    period: report.period.label,
    starts_at: isoOf(report.period.startMs),
    resets_at: isoOf(report.period.endMs),
    tenants: report.tenants.map(tenantJson),
  };
}
