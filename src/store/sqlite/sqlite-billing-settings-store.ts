// Billing settings in SQLite (see billing-settings-store.ts); validation is shared (billing-settings-record.ts).
import type { Database } from 'better-sqlite3';
import { changedKeyBilling, parseTermsPatch, validatePeriodStartDay, validateTermsPatch } from '../billing-settings-record.js';
import { DEFAULT_PERIOD_START_DAY, type BillingSettingsStore, type KeyBilling, type TermsPatch } from '../billing-settings-store.js';
import { keyNotFound } from '../key-record.js';
import type { Plan } from '../key-store.js';
import { validatePlan } from '../key-validation.js';

const START_DAY = 'period_start_day';

export class SqliteBillingSettingsStore implements BillingSettingsStore {
  constructor(private readonly db: Database) {}

  async planOverrides(): Promise<Partial<Record<Plan, TermsPatch>>> {
    const rows = this.db.prepare<[], { plan: Plan; overrides: string }>('SELECT plan, overrides FROM billing_plans').all();
    return Object.fromEntries(rows.map((row) => [row.plan, parseTermsPatch(row.overrides)]));
  }

  async updatePlan(plan: Plan, patch: TermsPatch): Promise<TermsPatch> {
    validatePlan(plan);
    const valid = validateTermsPatch(patch);
    return this.db
      .transaction(() => {
        const row = this.db.prepare<[string], { overrides: string }>('SELECT overrides FROM billing_plans WHERE plan = ?').get(plan);
        const merged = { ...parseTermsPatch(row?.overrides ?? null), ...valid };
        this.db
          .prepare('INSERT INTO billing_plans (plan, overrides) VALUES (?, ?) ON CONFLICT (plan) DO UPDATE SET overrides = excluded.overrides')
          .run(plan, JSON.stringify(merged));
        return merged;
      })
      .immediate();
  }

  async resetPlan(plan: Plan): Promise<void> {
    this.db.prepare('DELETE FROM billing_plans WHERE plan = ?').run(validatePlan(plan));
  }

  async keyBilling(keyId: string): Promise<KeyBilling> {
    return this.readKey(keyId);
  }

  async updateKey(keyId: string, change: { overrides?: TermsPatch; clearOverrides?: boolean; addCreditMicros?: number }): Promise<KeyBilling> {
    return this.db
      .transaction(() => {
        if (!this.db.prepare('SELECT 1 FROM api_keys WHERE id = ?').get(keyId)) throw keyNotFound(keyId);
        const next = changedKeyBilling(this.readKey(keyId), change);
        this.db
          .prepare(`INSERT INTO key_billing (key_id, overrides, credit_granted_micros) VALUES (?, ?, ?)
            ON CONFLICT (key_id) DO UPDATE SET overrides = excluded.overrides, credit_granted_micros = excluded.credit_granted_micros`)
          .run(keyId, JSON.stringify(next.overrides), next.creditGrantedMicros);
        return next;
      })
      .immediate();
  }

  async periodStartDay(): Promise<number> {
    const row = this.db.prepare<[string], { value: string }>('SELECT value FROM billing_settings WHERE name = ?').get(START_DAY);
    return row ? Number(row.value) : DEFAULT_PERIOD_START_DAY;
  }

  async setPeriodStartDay(day: number): Promise<void> {
    this.db
      .prepare('INSERT INTO billing_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value')
      .run(START_DAY, String(validatePeriodStartDay(day)));
  }

  private readKey(keyId: string): KeyBilling {
    const row = this.db
      .prepare<[string], { overrides: string; credit_granted_micros: number | null }>('SELECT overrides, credit_granted_micros FROM key_billing WHERE key_id = ?')
      .get(keyId);
    return { overrides: parseTermsPatch(row?.overrides ?? null), creditGrantedMicros: row?.credit_granted_micros ?? null };
  }
}
