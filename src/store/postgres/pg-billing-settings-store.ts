// Billing settings in PostgreSQL (see billing-settings-store.ts); validation is shared (billing-settings-record.ts).
// Read-modify-write changes lock their row (FOR UPDATE, or the insert's conflict) so concurrent
// top-ups add up instead of one overwriting the other.
import { changedKeyBilling, parseTermsPatch, validatePeriodStartDay, validateTermsPatch } from '../billing-settings-record.js';
import { DEFAULT_PERIOD_START_DAY, type BillingSettingsStore, type KeyBilling, type TermsPatch } from '../billing-settings-store.js';
import { keyNotFound } from '../key-record.js';
import type { Plan } from '../key-store.js';
import { validatePlan } from '../key-validation.js';
import type { PostgresDatabase } from './database.js';

import type { Queryable } from './queryable.js';
const START_DAY = 'period_start_day';

export class PgBillingSettingsStore implements BillingSettingsStore {
  constructor(private readonly db: PostgresDatabase) {}

  async planOverrides(): Promise<Partial<Record<Plan, TermsPatch>>> {
    const { rows } = await this.db.query<{ plan: Plan; overrides: string }>('SELECT plan, overrides FROM billing_plans');
    return Object.fromEntries(rows.map((row) => [row.plan, parseTermsPatch(row.overrides)]));
  }

  async updatePlan(plan: Plan, patch: TermsPatch): Promise<TermsPatch> {
    validatePlan(plan);
    const valid = validateTermsPatch(patch);
    return this.db.transaction(async (client) => {
      await client.query(`INSERT INTO billing_plans (plan, overrides) VALUES ($1, '{}') ON CONFLICT (plan) DO NOTHING`, [plan]);
      const { rows } = await client.query<{ overrides: string }>('SELECT overrides FROM billing_plans WHERE plan = $1 FOR UPDATE', [plan]);
      const merged = { ...parseTermsPatch(rows[0].overrides), ...valid };
      await client.query('UPDATE billing_plans SET overrides = $2 WHERE plan = $1', [plan, JSON.stringify(merged)]);
      return merged;
    });
  }

  async resetPlan(plan: Plan): Promise<void> {
    await this.db.query('DELETE FROM billing_plans WHERE plan = $1', [validatePlan(plan)]);
  }

  async keyBilling(keyId: string): Promise<KeyBilling> {
    return readKey(this.db, keyId, '');
  }

  async updateKey(keyId: string, change: { overrides?: TermsPatch; clearOverrides?: boolean; addCreditMicros?: number }): Promise<KeyBilling> {
    return this.db.transaction(async (client) => {
      const { rows } = await client.query('SELECT 1 FROM api_keys WHERE id = $1', [keyId]);
      if (rows.length === 0) throw keyNotFound(keyId);
      await client.query(`INSERT INTO key_billing (key_id, overrides, credit_granted_micros) VALUES ($1, '{}', NULL) ON CONFLICT (key_id) DO NOTHING`, [keyId]);
      const next = changedKeyBilling(await readKey(client, keyId, 'FOR UPDATE'), change);
      await client.query('UPDATE key_billing SET overrides = $2, credit_granted_micros = $3 WHERE key_id = $1', [keyId, JSON.stringify(next.overrides), next.creditGrantedMicros]);
      return next;
    });
  }

  async periodStartDay(): Promise<number> {
    const { rows } = await this.db.query<{ value: string }>('SELECT value FROM billing_settings WHERE name = $1', [START_DAY]);
    return rows.length > 0 ? Number(rows[0].value) : DEFAULT_PERIOD_START_DAY;
  }

  async setPeriodStartDay(day: number): Promise<void> {
    await this.db.query('INSERT INTO billing_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value', [
      START_DAY,
      String(validatePeriodStartDay(day)),
    ]);
  }
}

async function readKey(client: Queryable, keyId: string, lock: '' | 'FOR UPDATE'): Promise<KeyBilling> {
  const { rows } = await client.query<{ overrides: string; credit_granted_micros: number | null }>(
    `SELECT overrides, credit_granted_micros FROM key_billing WHERE key_id = $1 ${lock}`,
    [keyId],
  );
  return { overrides: parseTermsPatch(rows[0]?.overrides ?? null), creditGrantedMicros: rows[0]?.credit_granted_micros ?? null };
}
