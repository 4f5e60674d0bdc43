// Billing settings (see billing-settings-store.ts): one implementation for SQLite and PostgreSQL, on
// Kysely (store-db.ts); validation is shared (billing-settings-record.ts). A read-modify-write change
// makes sure its row exists, then reads and rewrites it in one `immediate` transaction, the row
// locked FOR UPDATE on PostgreSQL, so concurrent top-ups add up instead of one overwriting the other.
import type { Plan } from '../../domain/api-keys.js';
import { changedKeyBilling, parseTermsPatch, validatePeriodStartDay, validateTermsPatch } from '../billing-settings-record.js';
import { type BillingSettingsStore, DEFAULT_PERIOD_START_DAY, type KeyBilling, type TermsPatch } from '../billing-settings-store.js';
import { keyNotFound } from '../key-record.js';
import { validatePlan } from '../key-validation.js';
import { immediate } from './immediate.js';
import { onPostgresDb } from './store-db.js';
import type { StoreDb } from './store-schema.js';

const START_DAY = 'period_start_day';

export class KyselyBillingSettingsStore implements BillingSettingsStore {
  private readonly postgres: boolean;

  constructor(private readonly db: StoreDb) {
    this.postgres = onPostgresDb(db);
  }

  async planOverrides(): Promise<Partial<Record<Plan, TermsPatch>>> {
    const rows = await this.db.selectFrom('billing_plans').select(['plan', 'overrides']).execute();
    return Object.fromEntries(rows.map((row) => [row.plan, parseTermsPatch(row.overrides)]));
  }

  async updatePlan(plan: Plan, patch: TermsPatch): Promise<TermsPatch> {
    validatePlan(plan);
    const valid = validateTermsPatch(patch);
    return immediate(this.db, async (trx) => {
      await trx
        .insertInto('billing_plans')
        .values({ plan, overrides: '{}' })
        .onConflict((conflict) => conflict.column('plan').doNothing())
        .execute();
      const row = await trx
        .selectFrom('billing_plans')
        .select('overrides')
        .where('plan', '=', plan)
        .$if(this.postgres, (query) => query.forUpdate())
        .executeTakeFirstOrThrow();
      const merged = { ...parseTermsPatch(row.overrides), ...valid };
      await trx
        .updateTable('billing_plans')
        .set({ overrides: JSON.stringify(merged) })
        .where('plan', '=', plan)
        .execute();
      return merged;
    });
  }

  async resetPlan(plan: Plan): Promise<void> {
    await this.db.deleteFrom('billing_plans').where('plan', '=', validatePlan(plan)).execute();
  }

  async keyBilling(keyId: string): Promise<KeyBilling> {
    return this.readKey(this.db, keyId);
  }

  async updateKey(keyId: string, change: { overrides?: TermsPatch; clearOverrides?: boolean; addCreditMicros?: number }): Promise<KeyBilling> {
    return immediate(this.db, async (trx) => {
      if (!(await trx.selectFrom('api_keys').select('id').where('id', '=', keyId).executeTakeFirst())) throw keyNotFound(keyId);
      await trx
        .insertInto('key_billing')
        .values({ key_id: keyId, overrides: '{}', credit_granted_micros: null })
        .onConflict((conflict) => conflict.column('key_id').doNothing())
        .execute();
      const next = changedKeyBilling(await this.readKey(trx, keyId, this.postgres), change);
      await trx
        .updateTable('key_billing')
        .set({ overrides: JSON.stringify(next.overrides), credit_granted_micros: next.creditGrantedMicros })
        .where('key_id', '=', keyId)
        .execute();
      return next;
    });
  }

  async periodStartDay(): Promise<number> {
    const row = await this.db.selectFrom('billing_settings').select('value').where('name', '=', START_DAY).executeTakeFirst();
    return row ? Number(row.value) : DEFAULT_PERIOD_START_DAY;
  }

  async setPeriodStartDay(day: number): Promise<void> {
    await this.db
      .insertInto('billing_settings')
      .values({ name: START_DAY, value: String(validatePeriodStartDay(day)) })
      .onConflict((conflict) => conflict.column('name').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
      .execute();
  }

  private async readKey(db: StoreDb, keyId: string, forUpdate = false): Promise<KeyBilling> {
    const row = await db
      .selectFrom('key_billing')
      .select(['overrides', 'credit_granted_micros'])
      .where('key_id', '=', keyId)
      .$if(forUpdate, (query) => query.forUpdate())
      .executeTakeFirst();
    return { overrides: parseTermsPatch(row?.overrides ?? null), creditGrantedMicros: row?.credit_granted_micros ?? null };
  }
}
