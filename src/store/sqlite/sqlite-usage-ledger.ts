// The usage ledger in SQLite (see usage-ledger.ts). `UsageRecorder.record` runs inside the caller's
// transaction (the job store's success, or the ledger's own IMMEDIATE one): the tenant's sum and
// the insert see the same database, so charges are never figured from a stale sum. The sums are read
// from the totals the database keeps with each event (migration 8), one row each.
import type { Database, Statement } from 'better-sqlite3';
import type { UsageLedger } from '../usage-ledger.js';
import {
  chargeOf,
  poolOf,
  USAGE_EVENT_COLUMNS,
  usageEventRow,
  type PoolTerms,
  type PoolTotals,
  type UsageEvent,
  type UsageLine,
  type UsageQuery,
  type UsageStanding,
} from '../usage-record.js';
import { POOL_TOTALS_ORDER, POOL_TOTALS_SELECT, poolTotalsOf, REPORT_GROUPING, REPORT_SELECT, standingOf, usageLineOf, type PoolTotalsRow, type UsageLineRow } from '../usage-report-row.js';

/** Records events; call only inside a transaction. */
export class UsageRecorder {
  private readonly exists: Statement<[string], { one: number }>;
  private readonly used: Statement<[string, string, string], { ms: number }>;
  private readonly insert: Statement;
  private readonly reviewRequired: Statement<[number, string]>;

  constructor(db: Database) {
    this.exists = db.prepare('SELECT 1 AS one FROM usage_events WHERE event_key = ?');
    this.used = db.prepare('SELECT coalesce((SELECT audio_ms FROM usage_pool_totals WHERE tenant = ? AND period = ? AND pool = ?), 0) AS ms');
    this.insert = db.prepare(`INSERT INTO usage_events (${USAGE_EVENT_COLUMNS.join(', ')}) VALUES (${USAGE_EVENT_COLUMNS.map((c) => `@${c}`).join(', ')})`);
    this.reviewRequired = db.prepare('UPDATE usage_events SET review_required = review_required + ? WHERE event_key = ?');
  }

  record(event: UsageEvent, terms: PoolTerms): boolean {
    if (this.exists.get(event.eventKey)) return false;
    const usedMs = this.used.get(event.tenant, event.period, poolOf(event.route))!.ms;
    this.insert.run(usageEventRow(event, chargeOf(usedMs, event.audioMs, terms)));
    return true;
  }

  /** Passages found to need review after the event was recorded (a job's decoration). */
  addReviewRequired(eventKey: string, passages: number): void {
    this.reviewRequired.run(passages, eventKey);
  }
}

export class SqliteUsageLedger implements UsageLedger {
  private readonly recordTransaction: (event: UsageEvent, terms: PoolTerms) => boolean;

  constructor(private readonly db: Database) {
    const recorder = new UsageRecorder(db);
    const record = db.transaction((event: UsageEvent, terms: PoolTerms) => recorder.record(event, terms));
    this.recordTransaction = (event, terms) => record.immediate(event, terms);
  }

  async record(event: UsageEvent, terms: PoolTerms): Promise<boolean> {
    return this.recordTransaction(event, terms);
  }

  async standing(tenant: string, keyId: string, period: string): Promise<UsageStanding> {
    const pools = this.db
      .prepare<[string, string], { pool: string; ms: number }>('SELECT pool, audio_ms AS ms FROM usage_pool_totals WHERE tenant = ? AND period = ?')
      .all(tenant, period);
    const cost = this.db
      .prepare<[string, string], { period_cost: number; lifetime_cost: number }>(
        `SELECT coalesce(sum(CASE WHEN period = ? THEN cost_micros ELSE 0 END), 0) AS period_cost, coalesce(sum(cost_micros), 0) AS lifetime_cost
         FROM usage_key_costs WHERE key_id = ?`,
      )
      .get(period, keyId)!;
    return standingOf({ pools, cost });
  }

  async report(query: UsageQuery): Promise<UsageLine[]> {
    const tenantFilter = query.tenant === undefined ? '' : 'AND tenant = @tenant';
    return this.db
      .prepare<{ period: string; tenant?: string }, UsageLineRow>(`${REPORT_SELECT} WHERE period = @period ${tenantFilter} ${REPORT_GROUPING}`)
      .all({ period: query.period, ...(query.tenant === undefined ? {} : { tenant: query.tenant }) })
      .map(usageLineOf);
  }

  async periodTotals(period: string): Promise<PoolTotals[]> {
    return this.db
      .prepare<[string], PoolTotalsRow>(`${POOL_TOTALS_SELECT} WHERE period = ? ${POOL_TOTALS_ORDER}`)
      .all(period)
      .map(poolTotalsOf);
  }
}
