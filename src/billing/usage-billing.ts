// The billing desk the routes, the job worker and realtime sessions go through: where a key stands
// this period, whether more work is accepted (before it is, never in its middle), and metering work
// once it is done. Work whose length is known is admitted as a reservation (usage-reservation.ts):
// decisions count what was recorded plus what was admitted and not yet recorded, so requests racing
// for the last of an allowance cannot all pass. Terms are read from the database on every decision,
// so a change made with the CLI applies to the next request of every process.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { poolOf, type UsagePool, type UsageRoute } from '../domain/usage-routes.js';
import type { BillingSettingsStore, BillingTerms } from '../store/billing-settings-store.js';
import type { UsageLedger } from '../store/usage-ledger.js';
import { chargeOf, type MeteredWork, type SafetyCounters, type UsageEvent, type UsageStanding } from '../store/usage-record.js';
import type { UsageReservation } from '../store/usage-reservation.js';
import { admissibleMs, type BillingSituation, type BlockReason, blockReason, type NextRefusal, nextRefusal, resetsWithPeriod } from './billing-decision.js';
import { BillingBlockedError } from './billing-errors.js';
import { type BillingPeriod, billingPeriodAt, billingPeriodNamed } from './billing-period.js';
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
  /** What would refuse new work in each pool next (within NEXT_REFUSAL_HORIZON_MS of audio), and when that lifts by itself; null: nothing. */
  nextRefusal: Record<UsagePool, (NextRefusal & { resetsAtMs: number | null }) | null>;
}

/** How much more audio a status looks ahead for the next refusal: far more than a period brings. */
export const NEXT_REFUSAL_HORIZON_MS = 100_000 * 3_600_000;

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
    /** The instance that holds this process's reservations (their life ends with its heartbeat); null where none is registered. */
    private readonly instanceId: string | null = null,
  ) {}

  /** The current period (by the stored start day). */
  async period(nowMs = this.clock()): Promise<BillingPeriod> {
    return billingPeriodAt(nowMs, await this.settings.periodStartDay());
  }

  /** The period named 'YYYY-MM' (by the stored start day); null when the label is not a month. */
  async periodNamed(label: string): Promise<BillingPeriod | null> {
    return billingPeriodNamed(label, await this.settings.periodStartDay());
  }

  async terms(key: BilledKey): Promise<BillingTerms> {
    return (await this.keyTerms(key)).terms;
  }

  async status(key: BilledKey, period?: BillingPeriod): Promise<BillingStatus> {
    const current = period ?? (await this.period());
    const situation = await this.situation(key, current);
    const blocked = { batch: blockReason(situation, 'batch', 0), realtime: blockReason(situation, 'realtime', 0) };
    const credit = situation.creditGrantedMicros;
    const next = (pool: UsagePool) => {
      const refusal = nextRefusal(situation, pool, NEXT_REFUSAL_HORIZON_MS);
      return refusal === null ? null : { ...refusal, resetsAtMs: resetsAt(refusal.reason, situation.terms, pool, current) };
    };
    return {
      period: current,
      terms: situation.terms,
      standing: situation.standing,
      creditGrantedMicros: credit,
      creditLeftMicros: credit === null ? null : credit - situation.standing.keyLifetimeCostMicros,
      blocked,
      resetsAtMs: {
        batch: resetsAt(blocked.batch, situation.terms, 'batch', current),
        realtime: resetsAt(blocked.realtime, situation.terms, 'realtime', current),
      },
      nextRefusal: { batch: next('batch'), realtime: next('realtime') },
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
    if (reason !== null) throw this.refusal(reason, pool, situation.terms, period);
  }

  /**
   * Admits `estimateMs` of audio on `route`, reserved under `eventKey` (the key the work will be
   * metered under, which converts the reservation) until it is recorded or released; throws
   * BillingBlockedError as requireAllowance does, counting the live reservations too. It lives with
   * this process until `job` (when named) is accepted, then with that job until it ends: a job may be
   * reserved for before its row exists.
   */
  async reserve(key: BilledKey, route: UsageRoute, estimateMs: number, eventKey: string, job?: string): Promise<void> {
    await this.admit(key, route, eventKey, estimateMs, (situation, pool) => blockReason(situation, pool, estimateMs) ?? estimateMs, job);
  }

  /**
   * Admits as much of `wantedMs` as fits, and at least `leastMs` (work metered as it goes: a realtime
   * session's next slice), reserved under `eventKey` as reserve does: the audio admitted, or
   * BillingBlockedError when not even `leastMs` fits.
   */
  async reserveUpTo(key: BilledKey, route: UsageRoute, wantedMs: number, leastMs: number, eventKey: string): Promise<number> {
    const least = Math.max(1, Math.min(leastMs, wantedMs));
    return this.admit(key, route, eventKey, wantedMs, (situation, pool) => {
      const fits = admissibleMs(situation, pool, wantedMs);
      // Less than `least` fits, so `least` is refused, for the reason it gives.
      return fits >= least ? fits : (blockReason(situation, pool, least) ?? 'allowance');
    });
  }

  /** One reservation decided in the ledger's turn: `decide` gives the audio admitted or why none is. */
  private async admit(
    key: BilledKey,
    route: UsageRoute,
    eventKey: string,
    asked: number,
    decide: (situation: BillingSituation, pool: UsagePool) => BlockReason | number,
    job?: string,
  ): Promise<number> {
    const holder = holderOf(this.instanceId, job);
    const period = await this.period();
    const pool = poolOf(route);
    const own = await this.keyTerms(key);
    const paused = key.billingState !== 'active';
    const terms = poolTerms(own.terms, pool);
    const reservation: UsageReservation = {
      key: eventKey,
      tenant: key.tenant,
      keyId: key.id,
      period: period.label,
      pool,
      audioMs: asked,
      holder,
      atMs: this.clock(),
    };
    let admitted = 0;
    const reason = await this.ledger.reserve<BlockReason>(reservation, (standing) => {
      const decided = decide({ ...own, standing, paused }, pool);
      if (typeof decided !== 'number') return { refused: decided };
      admitted = decided;
      return { audioMs: decided, costMicros: chargeOf(standing.tenantUsedMs[pool], decided, terms).costMicros };
    });
    if (reason !== null) throw this.refusal(reason, pool, own.terms, period);
    return admitted;
  }

  /** Gives up the reservation of work that will not be metered (failed, cancelled); nothing when it was converted already. */
  async release(eventKey: string): Promise<void> {
    await this.ledger.release(eventKey);
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

  /** The refusal of new work in `pool`, told to the observer. */
  private refusal(reason: BlockReason, pool: UsagePool, terms: BillingTerms, period: BillingPeriod): BillingBlockedError {
    this.observer?.billingRefused(reason, pool);
    return new BillingBlockedError(reason, pool, resetsAt(reason, terms, pool, period));
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

function holderOf(instance: string | null, job: string | undefined): UsageReservation['holder'] {
  if (instance !== null) return { instance, job };
  if (job !== undefined) return { job };
  throw new Error('a reservation outside a job needs the instance that holds it (UsageBilling instanceId)');
}

/** When a block lifts by itself (the period's end), or null (none, or an operator must act). */
function resetsAt(reason: BlockReason | null, terms: BillingTerms, pool: UsagePool, period: BillingPeriod): number | null {
  return reason !== null && resetsWithPeriod(reason, poolTerms(terms, pool)) ? period.endMs : null;
}
