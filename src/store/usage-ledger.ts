// The usage ledger: units of work as they are done, durably and exactly once, and the sums that
// decide whether more work is accepted (src/billing/) and that reports show. Recording is keyed by
// the unit of work (UsageEvent.eventKey): a retried chunk or a job run again after a crash records
// nothing new. A job's event is recorded with its success, in the same transaction (JobStore.succeed).
import type { DailyUsage, PoolTerms, PoolTotals, UsageEvent, UsageLine, UsageQuery, UsageStanding } from './usage-record.js';
import type { ReservationDecision, UsageReservation } from './usage-reservation.js';

export interface UsageLedger {
  /**
   * Records the event with its charge under `terms` (the part beyond the tenant's allowance, priced),
   * atomically with the tenant's other events: two keys of one tenant racing past the allowance are
   * charged in some order, never both for the same hours. False when the event was recorded already.
   * The reservation keyed by the event's key, if any, is converted (deleted) in the same transaction.
   */
  record(event: UsageEvent, terms: PoolTerms): Promise<boolean>;
  /**
   * Admits the reservation if `decide`, given where the key stands with the recorded work and every
   * live reservation but this key's counted, accepts it; atomically with the tenant's other
   * reservations and records (processes take turns per tenant). The reason it was refused, or null.
   */
  reserve<Refusal>(reservation: UsageReservation, decide: ReservationDecision<Refusal>): Promise<Refusal | null>;
  /** Gives the reservation up (the work failed or was cancelled); nothing when it is gone already. */
  release(reservationKey: string): Promise<void>;
  /** Deletes the reservations that no longer count (their instance dead, their job ended); how many. */
  deleteDeadReservations(): Promise<number>;
  /** Where the key and its tenant stand in `period`. */
  standing(tenant: string, keyId: string, period: string): Promise<UsageStanding>;
  /** The period's lines, per tenant, key, route, model and language family. */
  report(query: UsageQuery): Promise<UsageLine[]>;
  /** The period's audio per tenant, UTC day, route and pool, in that order (a day, route or pool without work has no row). */
  daily(query: UsageQuery): Promise<DailyUsage[]>;
  /** The period's totals per tenant and pool, ordered by tenant and pool (kept by the database: no scan of the events). */
  periodTotals(period: string): Promise<PoolTotals[]>;
}
