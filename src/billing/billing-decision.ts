// Whether more work is accepted: a pure decision over a key's terms and where it stands, made before
// the work is accepted (never in the middle of it). The order is the contract's: an operator's pause
// wins; then the allowance (on a plan that sells no overage), the spend cap, the prepaid credit.
import { type UsagePool } from '../domain/usage-routes.js';
import type { BillingTerms } from '../store/billing-settings-store.js';
import { chargeOf, type PoolTerms, type UsageStanding } from '../store/usage-record.js';
import { poolTerms } from './billing-terms.js';

export const BLOCK_REASONS = ['paused', 'allowance', 'spend_cap', 'credit'] as const;
export type BlockReason = (typeof BLOCK_REASONS)[number];

export interface BillingSituation {
  terms: BillingTerms;
  standing: UsageStanding;
  creditGrantedMicros: number | null;
  /** The key's billing state was set to paused by an operator (or a failed payment). */
  paused: boolean;
}

/** null: accepted. Otherwise why not. `estimateMs`: the audio the work brings, when known (0 when not). */
export function blockReason(situation: BillingSituation, pool: UsagePool, estimateMs: number): BlockReason | null {
  if (situation.paused) return 'paused';
  const terms = poolTerms(situation.terms, pool);
  if (terms.includedMs === null) return null;
  const usedMs = situation.standing.tenantUsedMs[pool];
  if (usedMs < terms.includedMs && usedMs + estimateMs <= terms.includedMs) return null;
  if (terms.priceMicrosPerHour === null) return 'allowance';
  // Overage that costs nothing can pass no cap and draws no credit.
  if (terms.priceMicrosPerHour === 0) return null;
  const { costMicros } = chargeOf(usedMs, estimateMs, terms);
  const cap = situation.terms.spendCapMicros;
  const spent = situation.standing.keyPeriodCostMicros;
  if (cap !== null && (spent >= cap || spent + costMicros > cap)) return 'spend_cap';
  if (situation.creditGrantedMicros !== null) {
    const left = situation.creditGrantedMicros - situation.standing.keyLifetimeCostMicros;
    if (left <= 0 || costMicros > left) return 'credit';
  }
  return null;
}

/**
 * The most audio, up to `wantedMs`, that work in `pool` may bring now (0: none): what blockReason
 * admits, found by halving (it admits less audio whenever it admits more), so the two never disagree.
 */
export function admissibleMs(situation: BillingSituation, pool: UsagePool, wantedMs: number): number {
  if (blockReason(situation, pool, wantedMs) === null) return wantedMs;
  if (blockReason(situation, pool, 0) !== null) return 0;
  let admitted = 0;
  let refused = wantedMs;
  while (refused - admitted > 1) {
    const middle = Math.floor((admitted + refused) / 2);
    if (blockReason(situation, pool, middle) === null) admitted = middle;
    else refused = middle;
  }
  return admitted;
}

/** What would refuse new work in a pool next: once more than `afterMs` of audio is brought (0: any now), and why. */
export interface NextRefusal {
  afterMs: number;
  reason: BlockReason;
}

/**
 * What refuses work in `pool` next, looking no further than `horizonMs` of audio (null: nothing
 * within it): the most admissibleMs admits, and the reason blockReason gives for a millisecond more.
 * A page saying "batch audio beyond 2.0 h more is refused" says what the API will do.
 */
export function nextRefusal(situation: BillingSituation, pool: UsagePool, horizonMs: number): NextRefusal | null {
  const afterMs = admissibleMs(situation, pool, horizonMs);
  if (afterMs >= horizonMs) return null;
  const reason = blockReason(situation, pool, afterMs + 1);
  return reason === null ? null : { afterMs, reason };
}

/**
 * Whether a block lifts by itself when the next period starts: the allowance and the cap reset; used
 * credit is lifted by a new period's allowance if the pool has one (work within it costs nothing);
 * a pause needs an operator.
 */
export function resetsWithPeriod(reason: BlockReason, terms: PoolTerms): boolean {
  if (reason === 'credit') return terms.includedMs === null || terms.includedMs > 0;
  return reason === 'allowance' || reason === 'spend_cap';
}
