// The usage ledger: units of work as they are done, durably and exactly once, and the sums that
// decide whether more work is accepted (src/billing/) and that reports show. Recording is keyed by
// the unit of work (UsageEvent.eventKey): a retried chunk or a job run again after a crash records
// nothing new. A job's event is recorded with its success, in the same transaction (JobStore.succeed).
import type { PoolTerms, PoolTotals, UsageEvent, UsageLine, UsageQuery, UsageStanding } from './usage-record.js';

export interface UsageLedger {
  /**
   * Records the event with its charge under `terms` (the part beyond the tenant's allowance, priced),
   * atomically with the tenant's other events: two keys of one tenant racing past the allowance are
   * charged in some order, never both for the same hours. False when the event was recorded already.
   */
  record(event: UsageEvent, terms: PoolTerms): Promise<boolean>;
  /** Where the key and its tenant stand in `period`. */
  standing(tenant: string, keyId: string, period: string): Promise<UsageStanding>;
  /** The period's lines, per tenant, key, route, model and language family. */
  report(query: UsageQuery): Promise<UsageLine[]>;
  /** The period's totals per tenant and pool, ordered by tenant and pool (kept by the database: no scan of the events). */
  periodTotals(period: string): Promise<PoolTotals[]>;
}
