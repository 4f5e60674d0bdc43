// The billing desk the routes, the job worker and realtime sessions go through: where a key stands
// this period, whether more work is accepted (before it is, never in its middle), and metering work
// once it is done. Terms are read from the database on every decision, so a change made with the
// CLI applies to the next request of every process.
import type { BillingSettingsStore, BillingTerms } from '../store/billing-settings-store.js';
import type { ApiKeyRecord } from '../store/key-store.js';
import type { UsageLedger } from '../store/usage-ledger.js';
import { poolOf, type MeteredWork, type SafetyCounters, type UsageEvent, type UsagePool, type UsageRoute, type UsageStanding } from '../store/usage-record.js';
import { blockReason, resetsWithPeriod, type BillingSituation, type BlockReason } from './billing-decision.js';
import { BillingBlockedError } from './billing-errors.js';
import { billingPeriodAt, type BillingPeriod } from './billing-period.js';
import { poolTerms, resolveTerms } from './billing-terms.js';

export type BilledKey = Pick<ApiKeyRecord, 'id' | 'tenant' | 'plan' | 'billingState'>;

/** A unit of work done, as metered (counters only): the ledger's event before it is given its key, period and time. */
export type WorkDone = Omit<UsageEvent, 'tenant' | 'keyId' | 'period' | 'atMs'>;

export interface BillingStatus {
  period: BillingPeriod;
  terms: BillingTerms;
  standing: UsageStanding;
  creditGrantedMicros: number | null;
  /** Credit granted less everything the key was charged; null without prepaid credit. */
  creditLeftMicros: number | null;
  /** Why new work in each pool would be refused now, or null. */
  blocked: Record<UsagePool, BlockReason | null>;
  /** When each pool's block lifts by itself (the next period), or null (not blocked, or an operator must act). */
  resetsAtMs: Record<UsagePool, number | null>;
}

/** Told of what was metered and refused (the service's Prometheus counters). */
export interface BillingObserver {
  metered(event: UsageEvent): void;
  /** Safety counters added to work metered earlier (a job's decoration). */
  safetyCounted(counters: Partial<SafetyCounters>): void;
  billingRefused(reason: BlockReason, pool: UsagePool): void;
}

export class UsageBilling {
  constructor(
    private readonly ledger: UsageLedger,
    private readonly settings: BillingSettingsStore,
    private readonly clock: () => number = Date.now,
    private readonly observer: BillingObserver | null = null,
  ) {}

  /** The current period (by the stored start day). */
  async period(nowMs = this.clock()): Promise<BillingPeriod> {
    return billingPeriodAt(nowMs, await this.settings.periodStartDay());
  }

  async terms(key: BilledKey): Promise<BillingTerms> {
    return (await this.keyTerms(key)).terms;
  }

  async status(key: BilledKey, period?: BillingPeriod): Promise<BillingStatus> {
    const current = period ?? (await this.period());
    const situation = await this.situation(key, current);
    const blocked = { batch: blockReason(situation, 'batch', 0), realtime: blockReason(situation, 'realtime', 0) };
    const credit = situation.creditGrantedMicros;
    return {
      period: current,
      terms: situation.terms,
      standing: situation.standing,
      creditGrantedMicros: credit,
      creditLeftMicros: credit === null ? null : credit - situation.standing.keyLifetimeCostMicros,
      blocked,
      resetsAtMs: { batch: resetsAt(blocked.batch, situation, 'batch', current), realtime: resetsAt(blocked.realtime, situation, 'realtime', current) },
    };
  }

  /**
   * Throws BillingBlockedError when work on `route` bringing `estimateMs` of audio (0 when not known
   * yet) would not be accepted: paused, allowance used without overage, spend cap, credit.
   */
  async requireAllowance(key: BilledKey, route: UsageRoute, estimateMs = 0): Promise<void> {
    const period = await this.period();
    const pool = poolOf(route);
    const situation = await this.situation(key, period);
    const reason = blockReason(situation, pool, estimateMs);
    if (reason === null) return;
    this.observer?.billingRefused(reason, pool);
    throw new BillingBlockedError(reason, pool, resetsAt(reason, situation, pool, period));
  }

  /** The ledger entry of work done now, with the terms it is charged under (JobStore.succeed records it with the job). */
  async meteredWork(key: BilledKey, work: WorkDone): Promise<MeteredWork> {
    const atMs = this.clock();
    const [period, terms] = await Promise.all([this.period(atMs), this.terms(key)]);
    const { eventKey, ...counters } = work;
    return {
      event: { eventKey, tenant: key.tenant, keyId: key.id, period: period.label, atMs, ...counters },
      terms: poolTerms(terms, poolOf(work.route)),
    };
  }

  /** Records work done (false when it was recorded already). */
  async meter(key: BilledKey, work: WorkDone): Promise<boolean> {
    const { event, terms } = await this.meteredWork(key, work);
    const recorded = await this.ledger.record(event, terms);
    if (recorded) this.recorded(event);
    return recorded;
  }

  /** Work recorded elsewhere (a job's, with its success) counts in the observer's figures too. */
  recorded(event: UsageEvent): void {
    this.observer?.metered(event);
  }

  /** Safety counters a store added to work recorded earlier (JobStore.endDecoration) count in the observer's figures too. */
  safetyRecorded(counters: Partial<SafetyCounters>): void {
    this.observer?.safetyCounted(counters);
  }

  private async situation(key: BilledKey, period: BillingPeriod): Promise<BillingSituation> {
    const [own, standing] = await Promise.all([this.keyTerms(key), this.ledger.standing(key.tenant, key.id, period.label)]);
    return { ...own, standing, paused: key.billingState !== 'active' };
  }

  /** The key's resolved terms (built-in plan, the plan's overrides, its own) and its credit. */
  private async keyTerms(key: BilledKey): Promise<{ terms: BillingTerms; creditGrantedMicros: number | null }> {
    const [plans, own] = await Promise.all([this.settings.planOverrides(), this.settings.keyBilling(key.id)]);
    return { terms: resolveTerms(key.plan, plans[key.plan], own.overrides), creditGrantedMicros: own.creditGrantedMicros };
  }
}

/** When a block lifts by itself (the period's end), or null (none, or an operator must act). */
function resetsAt(reason: BlockReason | null, situation: BillingSituation, pool: UsagePool, period: BillingPeriod): number | null {
  return reason !== null && resetsWithPeriod(reason, poolTerms(situation.terms, pool)) ? period.endMs : null;
}
