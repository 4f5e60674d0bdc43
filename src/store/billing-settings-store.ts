// The operator's billing settings: what each plan includes and costs (over the built-in defaults),
// what a key overrides, the prepaid credit granted to a key, and the day billing periods start.
// Stored in the database so that the CLI and every server process agree. Amounts are integers:
// audio in milliseconds, money in millionths of a currency unit.
import type { Plan } from '../domain/api-keys.js';

/** Everything a plan or a key can set. null values are meaningful (unlimited, no overage, no cap). */
export interface BillingTerms {
  /** Batch audio included per period, shared by a tenant's keys; null: unlimited. */
  batchIncludedMs: number | null;
  /** Realtime audio included per period, shared by a tenant's keys; null: unlimited. */
  realtimeIncludedMs: number | null;
  /** Per audio-hour beyond the batch allowance; null: none is sold (work is refused there). */
  batchPriceMicros: number | null;
  realtimePriceMicros: number | null;
  /** The most a key may be charged in a period; null: no cap. */
  spendCapMicros: number | null;
  /** The most audio one realtime session takes (it then ends with its final record); null: no limit. */
  realtimeSessionMaxMs: number | null;
}

export const BILLING_TERM_NAMES = [
  'batchIncludedMs',
  'realtimeIncludedMs',
  'batchPriceMicros',
  'realtimePriceMicros',
  'spendCapMicros',
  'realtimeSessionMaxMs',
] as const satisfies readonly (keyof BillingTerms)[];

/** What a plan or a key overrides; an absent field is inherited. */
export type TermsPatch = Partial<BillingTerms>;

export interface KeyBilling {
  overrides: TermsPatch;
  /** Prepaid credit granted to the key in total (top-ups add up); null: billed afterwards, no credit limit. */
  creditGrantedMicros: number | null;
}

/** Periods start on this day of the month (1 to 28), at 00:00 UTC. */
export const DEFAULT_PERIOD_START_DAY = 1;
export const MAX_PERIOD_START_DAY = 28;

export interface BillingSettingsStore {
  /** The operator's overrides of each plan's built-in terms. */
  planOverrides(): Promise<Partial<Record<Plan, TermsPatch>>>;
  /** Merges `patch` into the plan's overrides; `undefined` fields are left alone. */
  updatePlan(plan: Plan, patch: TermsPatch): Promise<TermsPatch>;
  /** Forgets the plan's overrides (back to the built-in terms). */
  resetPlan(plan: Plan): Promise<void>;
  keyBilling(keyId: string): Promise<KeyBilling>;
  /** Merges `patch` into the key's overrides and adds `addCreditMicros` to its credit (which then exists). */
  updateKey(keyId: string, change: { overrides?: TermsPatch; clearOverrides?: boolean; addCreditMicros?: number }): Promise<KeyBilling>;
  periodStartDay(): Promise<number>;
  setPeriodStartDay(day: number): Promise<void>;
}
