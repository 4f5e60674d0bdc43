// The BillingSettingsStore contract, run against every implementation (test/store/billing-settings-store.test.ts):
// plan overrides merged and reset, key overrides and prepaid credit (top-ups add up, also when two
// processes top up at once), validation as KeyStoreError, and the period start day. Keys are real
// api_keys rows made by the key store on the same database.
import type { Test } from 'tap';

import type { BillingSettingsStore } from '../../../src/store/billing-settings-store.js';
import type { KeyStore } from '../../../src/store/key-store.js';
import { KeyStoreError } from '../../../src/store/key-store-error.js';
import { refuses } from './refusal.js';

export interface BillingSettingsStoreHarness {
  settings: BillingSettingsStore;
  /** Another settings store on a connection of its own to the same database, as another process has. */
  another(): Promise<BillingSettingsStore>;
  /** A key store on the same database, to create the keys whose billing is set. */
  keys: KeyStore;
  close(): Promise<void>;
}

export type MakeBillingSettingsStore = (t: Test) => Promise<BillingSettingsStoreHarness>;

export function billingSettingsStoreContract(t: Test, name: string, make: MakeBillingSettingsStore): void {
  const open = async (t: Test) => {
    const harness = await make(t);
    t.teardown(() => harness.close());
    const newKey = async () => (await harness.keys.create({ tenant: 'acme' })).record.id;
    return { ...harness, newKey };
  };
  const rejects = (t: Test, call: () => Promise<unknown>, code: 'invalid_argument' | 'not_found', message: RegExp) =>
    refuses(t, call, KeyStoreError, { code, message }, `${code} ${message}`);

  t.test(`${name}: BillingSettingsStore contract`, async (t) => {
    t.test('a fresh database: no plan overrides, default key billing, periods start on the 1st', async (t) => {
      const { settings, newKey } = await open(t);
      t.strictSame(await settings.planOverrides(), {});
      t.strictSame(await settings.keyBilling(await newKey()), { overrides: {}, creditGrantedMicros: null });
      t.strictSame(await settings.keyBilling('key_ZZZZZZZZZZZZ'), { overrides: {}, creditGrantedMicros: null }, 'an unknown key reads as the default');
      t.equal(await settings.periodStartDay(), 1);
    });

    t.test('updatePlan merges: undefined keeps a value, null is stored as null; resetPlan forgets one plan', async (t) => {
      const { settings, another } = await open(t);
      t.strictSame(await settings.updatePlan('payg', { batchIncludedMs: 1_000, spendCapMicros: 5_000_000 }), {
        batchIncludedMs: 1_000,
        spendCapMicros: 5_000_000,
      });
      t.strictSame(
        await settings.updatePlan('payg', { batchIncludedMs: undefined, batchPriceMicros: null, spendCapMicros: 7 }),
        { batchIncludedMs: 1_000, spendCapMicros: 7, batchPriceMicros: null },
        'merged into what was there',
      );
      t.strictSame(
        await settings.updatePlan('payg', { realtimeIncludedMs: 0 }),
        { batchIncludedMs: 1_000, spendCapMicros: 7, batchPriceMicros: null, realtimeIncludedMs: 0 },
        '0 is a value, not absence',
      );
      t.strictSame(await settings.updatePlan('builder', { realtimeIncludedMs: null }), { realtimeIncludedMs: null });
      const other = await another();
      const stored = await other.planOverrides();
      t.strictSame(
        stored,
        { payg: { batchIncludedMs: 1_000, spendCapMicros: 7, batchPriceMicros: null, realtimeIncludedMs: 0 }, builder: { realtimeIncludedMs: null } },
        'as read by another connection',
      );
      t.ok('batchPriceMicros' in (stored.payg ?? {}) && stored.payg?.batchPriceMicros === null, 'null is kept (no overage sold), not dropped');
      t.notOk('enterprise' in stored, 'an untouched plan has no entry');
      t.strictSame(await other.updatePlan('payg', {}), stored.payg, 'an empty patch changes nothing');

      await settings.resetPlan('payg');
      t.strictSame(await other.planOverrides(), { builder: { realtimeIncludedMs: null } }, 'only payg forgotten');
      await settings.resetPlan('payg');
      t.strictSame(await settings.planOverrides(), { builder: { realtimeIncludedMs: null } }, 'resetting twice is harmless');
      t.strictSame(await settings.updatePlan('payg', { realtimePriceMicros: 1 }), { realtimePriceMicros: 1 }, 'after a reset, overrides start from none');
    });

    t.test('invalid terms and plans are refused with invalid_argument; nothing is stored', async (t) => {
      const { settings, newKey } = await open(t);
      const keyId = await newKey();
      await settings.updatePlan('payg', { spendCapMicros: 10 });
      await settings.updateKey(keyId, { overrides: { spendCapMicros: 20 }, addCreditMicros: 30 });
      const bad: [string, unknown][] = [
        ['negative', -1],
        ['fractional', 1.5],
        ['a string', '100'],
        ['not a number', Number.NaN],
        ['infinite', Number.POSITIVE_INFINITY],
        ['beyond safe integers', 2 ** 53],
        ['a boolean', true],
      ];
      for (const [what, value] of bad) {
        const patch = { batchIncludedMs: 5, batchPriceMicros: value } as never;
        await rejects(t, () => settings.updatePlan('payg', patch), 'invalid_argument', /batchPriceMicros must be a whole non-negative amount/);
        await rejects(t, () => settings.updateKey(keyId, { overrides: patch }), 'invalid_argument', /batchPriceMicros/);
        t.pass(`${what} refused`);
      }
      await rejects(
        t,
        () => settings.updatePlan('payg', { batchIncludedMs: 5, monthlyFee: 10 } as never),
        'invalid_argument',
        /unknown billing term 'monthlyFee'/,
      );
      await rejects(t, () => settings.updateKey(keyId, { overrides: { spendCap: 10 } as never }), 'invalid_argument', /unknown billing term 'spendCap'/);
      await rejects(t, () => settings.updatePlan('gold' as never, { batchIncludedMs: 5 }), 'invalid_argument', /plan must be one of builder, payg, enterprise/);
      await rejects(t, () => settings.resetPlan('gold' as never), 'invalid_argument', /plan must be one of/);
      for (const credit of [0, -5, 1.5, Number.NaN]) {
        await rejects(
          t,
          () => settings.updateKey(keyId, { addCreditMicros: credit, overrides: { batchIncludedMs: 1 } }),
          'invalid_argument',
          /credit added must be a positive amount/,
        );
      }
      t.strictSame(await settings.planOverrides(), { payg: { spendCapMicros: 10 } }, 'plan overrides unchanged');
      t.strictSame(await settings.keyBilling(keyId), { overrides: { spendCapMicros: 20 }, creditGrantedMicros: 30 }, 'key billing unchanged');
    });

    t.test('updateKey: overrides merge, clearOverrides, credit adds up; unknown keys are not_found', async (t) => {
      const { settings, another, newKey } = await open(t);
      const keyId = await newKey();
      const otherKey = await newKey();
      t.strictSame(await settings.updateKey(keyId, { overrides: { batchIncludedMs: 1_000, spendCapMicros: null } }), {
        overrides: { batchIncludedMs: 1_000, spendCapMicros: null },
        creditGrantedMicros: null,
      });
      t.strictSame(
        await settings.updateKey(keyId, { overrides: { batchIncludedMs: undefined, realtimePriceMicros: 9 } }),
        { overrides: { batchIncludedMs: 1_000, spendCapMicros: null, realtimePriceMicros: 9 }, creditGrantedMicros: null },
        'merged; undefined keeps a value',
      );
      t.strictSame(
        await settings.updateKey(keyId, { addCreditMicros: 1_000_000 }),
        { overrides: { batchIncludedMs: 1_000, spendCapMicros: null, realtimePriceMicros: 9 }, creditGrantedMicros: 1_000_000 },
        'credit now exists; overrides kept',
      );
      t.strictSame((await settings.updateKey(keyId, { addCreditMicros: 250_000 })).creditGrantedMicros, 1_250_000, 'top-ups add up');
      t.strictSame(
        await settings.updateKey(keyId, { clearOverrides: true }),
        { overrides: {}, creditGrantedMicros: 1_250_000 },
        'clearOverrides forgets the overrides, keeps the credit',
      );
      t.strictSame(
        await settings.updateKey(keyId, { clearOverrides: true, overrides: { batchPriceMicros: 3 }, addCreditMicros: 5 }),
        { overrides: { batchPriceMicros: 3 }, creditGrantedMicros: 1_250_005 },
        'cleared, then the new overrides applied, with a top-up',
      );
      t.strictSame(
        await (await another()).keyBilling(keyId),
        { overrides: { batchPriceMicros: 3 }, creditGrantedMicros: 1_250_005 },
        'as read by another connection',
      );
      t.strictSame(await settings.keyBilling(otherKey), { overrides: {}, creditGrantedMicros: null }, 'another key is untouched');
      t.strictSame(await settings.updateKey(otherKey, {}), { overrides: {}, creditGrantedMicros: null }, 'an empty change');

      await rejects(t, () => settings.updateKey('key_ZZZZZZZZZZZZ', { addCreditMicros: 5 }), 'not_found', /key_ZZZZZZZZZZZZ/);
      await rejects(t, () => settings.updateKey('key_ZZZZZZZZZZZZ', { overrides: { batchIncludedMs: 1 } }), 'not_found', /key_ZZZZZZZZZZZZ/);
      t.strictSame(await settings.keyBilling('key_ZZZZZZZZZZZZ'), { overrides: {}, creditGrantedMicros: null }, 'nothing stored for an unknown key');
    });

    t.test('concurrent changes from two connections all count: top-ups add up, overrides merge', async (t) => {
      const { settings, another, newKey } = await open(t);
      const other = await another();
      const keyId = await newKey();
      // The first top-ups race to create the key's row.
      const topUps = Array.from({ length: 20 }, (_, i) => i + 1);
      await Promise.all(topUps.map((micros, i) => (i % 2 ? settings : other).updateKey(keyId, { addCreditMicros: micros })));
      t.equal((await settings.keyBilling(keyId)).creditGrantedMicros, 210, 'the sum of all twenty top-ups');
      await Promise.all([
        settings.updateKey(keyId, { overrides: { batchIncludedMs: 1 } }),
        other.updateKey(keyId, { overrides: { realtimeIncludedMs: 2 } }),
        settings.updateKey(keyId, { overrides: { batchPriceMicros: 3 }, addCreditMicros: 1_000 }),
        other.updateKey(keyId, { overrides: { realtimePriceMicros: 4 }, addCreditMicros: 2_000 }),
        settings.updatePlan('payg', { batchIncludedMs: 10 }),
        other.updatePlan('payg', { spendCapMicros: 20 }),
        settings.updatePlan('payg', { realtimeIncludedMs: 30 }),
        other.updatePlan('payg', { batchPriceMicros: 40 }),
      ]);
      t.strictSame(await other.keyBilling(keyId), {
        overrides: { batchIncludedMs: 1, realtimeIncludedMs: 2, batchPriceMicros: 3, realtimePriceMicros: 4 },
        creditGrantedMicros: 3_210,
      });
      t.strictSame(await settings.planOverrides(), { payg: { batchIncludedMs: 10, spendCapMicros: 20, realtimeIncludedMs: 30, batchPriceMicros: 40 } });
    });

    t.test('period start day: 1 by default, 1 to 28 accepted, anything else refused', async (t) => {
      const { settings, another } = await open(t);
      await settings.setPeriodStartDay(15);
      t.equal(await settings.periodStartDay(), 15);
      t.equal(await (await another()).periodStartDay(), 15, 'as read by another connection');
      for (const day of [0, 29, 31, -1, 1.5, Number.NaN]) {
        await rejects(t, () => settings.setPeriodStartDay(day), 'invalid_argument', /the period start day must be 1 to 28/);
      }
      t.equal(await settings.periodStartDay(), 15, 'unchanged by the refusals');
      await settings.setPeriodStartDay(28);
      t.equal(await settings.periodStartDay(), 28);
      await settings.setPeriodStartDay(1);
      t.equal(await settings.periodStartDay(), 1);
    });
  });
}
