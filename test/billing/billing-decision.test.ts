// Whether more work is accepted (src/billing/billing-decision.ts): every branch of blockReason in
// the contract's order (pause, allowance on a plan without overage, spend cap, prepaid credit), the
// estimate counted against each limit, and which blocks lift by themselves at the next period.
import t from 'tap';

import { admissibleMs, type BillingSituation, BLOCK_REASONS, blockReason, nextRefusal, resetsWithPeriod } from '../../src/billing/billing-decision.js';
import type { UsagePool } from '../../src/domain/usage-routes.js';
import type { BillingTerms } from '../../src/store/billing-settings-store.js';

const HOUR = 3_600_000;

/** Ten batch hours and five realtime hours included, overage at 0.45 and 0.60 per hour, no cap. */
const TERMS: BillingTerms = {
  batchIncludedMs: 10 * HOUR,
  realtimeIncludedMs: 5 * HOUR,
  batchPriceMicros: 450_000,
  realtimePriceMicros: 600_000,
  spendCapMicros: null,
  realtimeSessionMaxMs: null,
};
const NO_OVERAGE: Partial<BillingTerms> = { batchPriceMicros: null, realtimePriceMicros: null };

interface Case {
  terms?: Partial<BillingTerms>;
  batchUsedMs?: number;
  realtimeUsedMs?: number;
  periodCost?: number;
  lifetimeCost?: number;
  credit?: number | null;
  paused?: boolean;
}

function situation(c: Case): BillingSituation {
  return {
    terms: { ...TERMS, ...c.terms },
    standing: {
      tenantUsedMs: { batch: c.batchUsedMs ?? 0, realtime: c.realtimeUsedMs ?? 0 },
      keyPeriodCostMicros: c.periodCost ?? 0,
      keyLifetimeCostMicros: c.lifetimeCost ?? c.periodCost ?? 0,
    },
    creditGrantedMicros: c.credit ?? null,
    paused: c.paused ?? false,
  };
}

const decide = (c: Case, estimateMs = 0, pool: UsagePool = 'batch') => blockReason(situation(c), pool, estimateMs);

/** Everything blocked at once: allowance used without overage, cap reached, credit used. */
const EXHAUSTED: Case = {
  terms: { ...NO_OVERAGE, spendCapMicros: 100 },
  batchUsedMs: 20 * HOUR,
  realtimeUsedMs: 20 * HOUR,
  periodCost: 500,
  lifetimeCost: 5_000,
  credit: 1_000,
};

t.test('a pause wins over everything', async (t) => {
  t.equal(decide({ paused: true }), 'paused', 'even with nothing used');
  t.equal(decide({ paused: true }, 0, 'realtime'), 'paused', 'in both pools');
  t.equal(decide({ ...EXHAUSTED, paused: true }, 5 * HOUR), 'paused', 'over every other limit');
  t.equal(decide({ paused: true, terms: { batchIncludedMs: null } }), 'paused', 'unlimited too');
  t.equal(decide({ ...EXHAUSTED, paused: false }), 'allowance', 'the same situation unpaused');
});

t.test('an unlimited allowance accepts whatever else stands', async (t) => {
  t.equal(decide({ ...EXHAUSTED, terms: { ...EXHAUSTED.terms, batchIncludedMs: null } }, 100 * HOUR), null, 'cap and credit count only beyond an allowance');
  t.equal(decide({ ...EXHAUSTED, terms: { ...EXHAUSTED.terms, realtimeIncludedMs: null } }, 0, 'realtime'), null);
  t.equal(decide({ ...EXHAUSTED, terms: { ...EXHAUSTED.terms, realtimeIncludedMs: null } }, 0, 'batch'), 'allowance', 'the other pool keeps its allowance');
});

t.test('within the allowance: accepted, whatever the cap and credit', async (t) => {
  const spent: Case = { terms: { ...NO_OVERAGE, spendCapMicros: 100 }, periodCost: 500, lifetimeCost: 5_000, credit: 1_000 };
  t.equal(decide(spent), null, 'nothing used');
  t.equal(decide({ ...spent, batchUsedMs: 9 * HOUR }, HOUR), null, 'the estimate exactly fills the allowance');
  t.equal(decide({ ...spent, batchUsedMs: 10 * HOUR - 1 }), null, 'a millisecond left, nothing estimated');
  t.equal(decide({ ...spent, batchUsedMs: 10 * HOUR - 1 }, 1), null, 'a millisecond left, a millisecond estimated');
});

t.test('a plan without overage: the allowance is the limit, estimate included', async (t) => {
  const free: Case = { terms: NO_OVERAGE };
  t.equal(decide({ ...free, batchUsedMs: 9 * HOUR }, HOUR + 1), 'allowance', 'the estimate would cross it');
  t.equal(decide({ ...free, batchUsedMs: 0 }, 10 * HOUR + 1), 'allowance', 'one piece of work bigger than all of it');
  t.equal(decide({ ...free, batchUsedMs: 10 * HOUR - 1 }, 2), 'allowance');
  t.equal(decide({ ...free, batchUsedMs: 10 * HOUR }), 'allowance', 'exactly used, nothing estimated: blocked');
  t.equal(decide({ ...free, batchUsedMs: 12 * HOUR }), 'allowance', 'beyond it (a straddling event was recorded)');
  t.equal(decide({ ...free, terms: { ...NO_OVERAGE, batchIncludedMs: 0 } }), 'allowance', 'an allowance of 0 allows nothing');
  t.equal(decide({ ...free, batchUsedMs: 10 * HOUR }, 0, 'realtime'), null, 'the realtime pool is separate');
  t.equal(decide({ ...free, realtimeUsedMs: 5 * HOUR }, 0, 'realtime'), 'allowance', 'its own allowance');
  t.equal(
    decide({ terms: { batchPriceMicros: null }, realtimeUsedMs: 5 * HOUR }, 0, 'realtime'),
    null,
    'realtime sells overage on these terms: its own price counts',
  );
  t.equal(
    decide({ ...free, batchUsedMs: 10 * HOUR, credit: 0, lifetimeCost: 10, terms: { ...NO_OVERAGE, spendCapMicros: 0 } }),
    'allowance',
    'the allowance is named before cap and credit',
  );
});

t.test('overage sold, no cap, no credit: accepted beyond the allowance', async (t) => {
  t.equal(decide({ batchUsedMs: 10 * HOUR }), null);
  t.equal(decide({ batchUsedMs: 50 * HOUR, periodCost: 10_000_000 }, 50 * HOUR), null);
});

t.test('spend cap: reached, or passed by what the estimate would cost beyond the allowance', async (t) => {
  const capped = (spendCapMicros: number): Case => ({ terms: { spendCapMicros } });
  t.equal(decide({ ...capped(1_000_000), batchUsedMs: 10 * HOUR, periodCost: 1_000_000 }), 'spend_cap', 'reached');
  t.equal(decide({ ...capped(1_000_000), batchUsedMs: 10 * HOUR, periodCost: 1_200_000 }), 'spend_cap', 'passed (a straddling event)');
  t.equal(decide({ ...capped(1_000_000), batchUsedMs: 10 * HOUR, periodCost: 999_999 }), null, 'below it, nothing estimated');
  t.equal(decide({ ...capped(0), batchUsedMs: 10 * HOUR }), 'spend_cap', 'a cap of 0: no overage at all');
  t.equal(decide({ ...capped(0), batchUsedMs: 9 * HOUR }), null, 'but the allowance is still free');
  // 9 h used of 10: an estimate of 2 h costs only its last hour (450 000), of 3 h its last two (900 000).
  t.equal(decide({ ...capped(500_000), batchUsedMs: 9 * HOUR }, 2 * HOUR), null, "the estimate's tail only is priced");
  t.equal(decide({ ...capped(500_000), batchUsedMs: 9 * HOUR }, 3 * HOUR), 'spend_cap', 'the estimate would pass it');
  t.equal(decide({ ...capped(900_000), batchUsedMs: 9 * HOUR }, 3 * HOUR), null, 'exactly reaching it is allowed');
  t.equal(decide({ ...capped(900_000), batchUsedMs: 9 * HOUR, periodCost: 1 }, 3 * HOUR), 'spend_cap', 'one micro beyond');
  t.equal(decide({ ...capped(600_000), realtimeUsedMs: 5 * HOUR }, HOUR, 'realtime'), null, 'the realtime price: an hour costs 600 000');
  t.equal(decide({ ...capped(599_999), realtimeUsedMs: 5 * HOUR }, HOUR, 'realtime'), 'spend_cap');
  t.equal(decide({ ...capped(100), batchUsedMs: 10 * HOUR, periodCost: 100, credit: 0 }), 'spend_cap', 'named before credit');
  t.equal(decide({ terms: { spendCapMicros: 0, batchPriceMicros: 0 }, batchUsedMs: 10 * HOUR }, HOUR), null, 'free overage passes no cap, even a cap of 0');
});

t.test('prepaid credit: used, or too little for the estimate; irrelevant when overage is free', async (t) => {
  const beyond: Case = { batchUsedMs: 10 * HOUR };
  t.equal(decide({ ...beyond, credit: 1_000_000, lifetimeCost: 1_000_000 }), 'credit', 'used exactly');
  t.equal(decide({ ...beyond, credit: 1_000_000, lifetimeCost: 1_300_000 }), 'credit', 'overdrawn (a straddling event)');
  t.equal(decide({ ...beyond, credit: 1_000_000, lifetimeCost: 999_999 }), null, 'a micro left, nothing estimated');
  t.equal(decide({ ...beyond, credit: 1_000_000, lifetimeCost: 600_000 }, HOUR), 'credit', '400 000 left, an hour costs 450 000');
  t.equal(decide({ ...beyond, credit: 1_000_000, lifetimeCost: 550_000 }, HOUR), null, '450 000 left: exactly enough');
  t.equal(decide({ ...beyond, credit: 1_000_000, lifetimeCost: 5_000_000, periodCost: 0 }), 'credit', "counted over the key's lifetime, not the period");
  t.equal(decide({ ...beyond, credit: 0 }), 'credit', 'a credit of 0');
  t.equal(decide({ ...beyond, credit: null, lifetimeCost: 99_000_000 }), null, 'no credit: billed afterwards');
  t.equal(decide({ batchUsedMs: 9 * HOUR, credit: 100_000, lifetimeCost: 0 }, 2 * HOUR), 'credit', "the estimate's overage is priced against what is left");
  t.equal(decide({ batchUsedMs: 9 * HOUR, credit: 100_000, lifetimeCost: 0 }, HOUR), null, 'the estimate within the allowance costs nothing');
  t.equal(decide({ batchUsedMs: 5 * HOUR, credit: 0, lifetimeCost: 10 }), null, 'within the allowance credit does not matter');
  t.equal(decide({ ...beyond, terms: { batchPriceMicros: 0 }, credit: 0, lifetimeCost: 10 }, 10 * HOUR), null, 'price 0: credit irrelevant');
  t.equal(
    decide({ ...beyond, terms: { batchPriceMicros: null }, credit: 0, lifetimeCost: 10 }),
    'allowance',
    'no price: the allowance, not the credit, is what blocks',
  );
  t.equal(
    decide({ terms: { batchIncludedMs: null, batchPriceMicros: null }, credit: 0, lifetimeCost: 10 }),
    null,
    'unlimited with no price: credit irrelevant',
  );
  t.equal(decide({ realtimeUsedMs: 5 * HOUR, credit: 1_000, lifetimeCost: 0 }, HOUR, 'realtime'), 'credit', 'realtime overage draws on the same credit');
});

t.test('allowance and cap blocks lift with the next period; used credit lifts with a new allowance; a pause needs an operator', async (t) => {
  t.strictSame([...BLOCK_REASONS].sort(), ['allowance', 'credit', 'paused', 'spend_cap']);
  const some = { includedMs: HOUR, priceMicrosPerHour: 450_000 };
  const none = { includedMs: 0, priceMicrosPerHour: 450_000 };
  t.equal(resetsWithPeriod('allowance', some), true);
  t.equal(resetsWithPeriod('spend_cap', none), true);
  t.equal(resetsWithPeriod('paused', some), false);
  t.equal(resetsWithPeriod('credit', some), true, 'the next period brings free hours again');
  t.equal(resetsWithPeriod('credit', none), false, 'no allowance: only a top-up lifts it');
});

t.test('admissibleMs: the most audio blockReason lets through, up to what is wanted', async (t) => {
  const minute = 60_000;
  t.equal(admissibleMs(situation({}), 'realtime', minute), minute, 'within the allowance: all of it');
  t.equal(admissibleMs(situation({ terms: NO_OVERAGE, realtimeUsedMs: 5 * HOUR - 3_600 }), 'realtime', minute), 3_600, 'the allowance left');
  t.equal(admissibleMs(situation({ terms: NO_OVERAGE, realtimeUsedMs: 5 * HOUR }), 'realtime', minute), 0, 'none left');
  t.equal(admissibleMs(situation({ paused: true }), 'realtime', minute), 0, 'paused');
  // Beyond the allowance at 0.60 per hour: 0.001 of cap left buys 6 s.
  const capped = situation({ terms: { spendCapMicros: 10_000 }, realtimeUsedMs: 5 * HOUR, periodCost: 9_000 });
  // (Charges are rounded to the micro: a few milliseconds more cost the same.)
  t.ok(Math.abs(admissibleMs(capped, 'realtime', minute) - 6_000) <= 3, 'what the spend cap has left, priced');
  const credit = situation({ realtimeUsedMs: 5 * HOUR - 1_000, credit: 1_000, lifetimeCost: 0 });
  t.ok(Math.abs(admissibleMs(credit, 'realtime', minute) - 7_000) <= 3, 'the allowance left, then what the credit buys');
  for (const s of [capped, credit]) {
    const most = admissibleMs(s, 'realtime', minute);
    t.equal(blockReason(s, 'realtime', most), null, 'admitted as decided');
    t.not(blockReason(s, 'realtime', most + 1), null, 'one millisecond more is not');
  }
});

t.test('nextRefusal: how much more audio is accepted before a refusal, and which one', async (t) => {
  const far = 1000 * HOUR;
  t.same(nextRefusal(situation({ batchUsedMs: 4 * HOUR, terms: NO_OVERAGE }), 'batch', far), { afterMs: 6 * HOUR, reason: 'allowance' });
  t.same(nextRefusal(situation({ batchUsedMs: 12 * HOUR, terms: NO_OVERAGE }), 'batch', far), { afterMs: 0, reason: 'allowance' }, 'refused now');
  // 6 h left in the allowance, then 0.45 an hour up to a cap of 0.90 with 0.45 spent: one hour more (to the
  // few milliseconds a charge rounded to a millionth leaves).
  const capped = nextRefusal(situation({ batchUsedMs: 4 * HOUR, periodCost: 450_000, terms: { spendCapMicros: 900_000 } }), 'batch', far)!;
  t.equal(capped.reason, 'spend_cap');
  t.ok(Math.abs(capped.afterMs - 7 * HOUR) < 10, `7 h more (${capped.afterMs} ms)`);
  const credit = nextRefusal(situation({ realtimeUsedMs: 5 * HOUR, credit: 300_000 }), 'realtime', far)!;
  t.equal(credit.reason, 'credit');
  t.ok(Math.abs(credit.afterMs - HOUR / 2) < 10, `0.30 of credit at 0.60 an hour: half an hour (${credit.afterMs} ms)`);
  t.same(nextRefusal(situation({ paused: true }), 'batch', far), { afterMs: 0, reason: 'paused' });
  t.equal(nextRefusal(situation({ batchUsedMs: 40 * HOUR }), 'batch', far), null, 'overage sold without cap or credit: nothing within the horizon');
  t.equal(nextRefusal(situation({ terms: { batchIncludedMs: null } }), 'batch', far), null, 'unlimited');
  t.same(nextRefusal(situation({ terms: NO_OVERAGE }), 'batch', 2 * HOUR), null, 'the horizon bounds the look ahead');
});
