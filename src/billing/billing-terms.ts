// What each plan includes and costs before the operator changes anything, and how a key's terms are
// resolved: built-in plan terms, then the operator's plan overrides, then the key's own overrides.
// The contract fixes the realtime figures (25 audio-hours a month shared per project; 0.45 per
// audio-hour afterwards on Pay as you go); the batch figures are ours and configurable.
import type { Plan } from '../domain/api-keys.js';
import type { UsagePool } from '../domain/usage-routes.js';
import type { BillingTerms, TermsPatch } from '../store/billing-settings-store.js';
import type { PoolTerms } from '../store/usage-record.js';

export const MS_PER_HOUR = 3_600_000;
export const MICROS_PER_UNIT = 1_000_000;

const hours = (h: number) => h * MS_PER_HOUR;
const units = (u: number) => Math.round(u * MICROS_PER_UNIT);

export const DEFAULT_PLAN_TERMS: Readonly<Record<Plan, BillingTerms>> = {
  // The free tier: its allowances, no overage (work beyond them is refused until the next period).
  // A realtime session lasts at most 2 audio-hours (a consultation, not a microphone left open).
  builder: {
    batchIncludedMs: hours(25),
    realtimeIncludedMs: hours(25),
    batchPriceMicros: null,
    realtimePriceMicros: null,
    spendCapMicros: null,
    realtimeSessionMaxMs: hours(2),
  },
  // The contract's realtime terms; batch beyond its allowance at 0.30 per audio-hour; no cap unless
  // set; sessions of up to 4 audio-hours (a long procedure).
  payg: {
    batchIncludedMs: hours(25),
    realtimeIncludedMs: hours(25),
    batchPriceMicros: units(0.3),
    realtimePriceMicros: units(0.45),
    spendCapMicros: null,
    realtimeSessionMaxMs: hours(4),
  },
  // Custom: unlimited until the operator sets terms.
  enterprise: {
    batchIncludedMs: null,
    realtimeIncludedMs: null,
    batchPriceMicros: null,
    realtimePriceMicros: null,
    spendCapMicros: null,
    realtimeSessionMaxMs: null,
  },
};

export function resolveTerms(plan: Plan, planOverrides: TermsPatch | undefined, keyOverrides: TermsPatch): BillingTerms {
  return { ...DEFAULT_PLAN_TERMS[plan], ...planOverrides, ...keyOverrides };
}

export function poolTerms(terms: BillingTerms, pool: UsagePool): PoolTerms {
  return pool === 'realtime'
    ? { includedMs: terms.realtimeIncludedMs, priceMicrosPerHour: terms.realtimePriceMicros }
    : { includedMs: terms.batchIncludedMs, priceMicrosPerHour: terms.batchPriceMicros };
}
