// Billing periods (src/billing/billing-period.ts): UTC calendar months starting on the configured
// day, named after the month they start in; instants at and around the boundaries; December into
// January; labels parsed back.
import t from 'tap';

import { type BillingPeriod, billingPeriodAt, billingPeriodNamed } from '../../src/billing/billing-period.js';

const at = (iso: string) => Date.parse(iso);
const period = (label: string, start: string, end: string): BillingPeriod => ({ label, startMs: at(start), endMs: at(end) });

t.test('start day 1: calendar months', async (t) => {
  const november = period('2026-11', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z');
  t.strictSame(billingPeriodAt(at('2026-11-15T12:00:00.000Z'), 1), november);
  t.strictSame(billingPeriodAt(at('2026-11-01T00:00:00.000Z'), 1), november, 'the first instant belongs to the period');
  t.strictSame(
    billingPeriodAt(at('2026-10-31T23:59:59.999Z'), 1),
    period('2026-10', '2026-10-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z'),
    'a millisecond before is the previous one',
  );
  t.strictSame(billingPeriodAt(at('2026-11-30T23:59:59.999Z'), 1), november, 'the last instant');
  t.strictSame(
    billingPeriodAt(at('2026-12-01T00:00:00.000Z'), 1),
    period('2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'),
    "the end is the next one's start",
  );
  t.strictSame(
    billingPeriodAt(at('2028-02-29T10:00:00.000Z'), 1),
    period('2028-02', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'),
    'a leap February',
  );
});

t.test("start day 15: a period runs from the 15th to the next month's 15th, named after its first month", async (t) => {
  const october = period('2026-10', '2026-10-15T00:00:00.000Z', '2026-11-15T00:00:00.000Z');
  const november = period('2026-11', '2026-11-15T00:00:00.000Z', '2026-12-15T00:00:00.000Z');
  t.strictSame(billingPeriodAt(at('2026-11-01T00:00:00.000Z'), 15), october, "early November is still October's period");
  t.strictSame(billingPeriodAt(at('2026-11-14T23:59:59.999Z'), 15), october, 'a millisecond before the start day');
  t.strictSame(billingPeriodAt(at('2026-11-15T00:00:00.000Z'), 15), november, 'at the start day');
  t.strictSame(billingPeriodAt(at('2026-12-14T23:59:59.999Z'), 15), november);
  t.strictSame(billingPeriodAt(at('2026-10-20T00:00:00.000Z'), 15), october);
});

t.test('December into January', async (t) => {
  const december1 = period('2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z');
  t.strictSame(billingPeriodAt(at('2026-12-31T23:59:59.999Z'), 1), december1, "the year's last millisecond");
  t.strictSame(billingPeriodAt(at('2027-01-01T00:00:00.000Z'), 1), period('2027-01', '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z'), 'new year');

  const december15 = period('2026-12', '2026-12-15T00:00:00.000Z', '2027-01-15T00:00:00.000Z');
  t.strictSame(billingPeriodAt(at('2027-01-10T08:00:00.000Z'), 15), december15, "January before the 15th is the previous year's December period");
  t.strictSame(billingPeriodAt(at('2027-01-01T00:00:00.000Z'), 15), december15);
  t.strictSame(billingPeriodAt(at('2027-01-14T23:59:59.999Z'), 15), december15);
  t.strictSame(billingPeriodAt(at('2027-01-15T00:00:00.000Z'), 15), period('2027-01', '2027-01-15T00:00:00.000Z', '2027-02-15T00:00:00.000Z'));
  t.strictSame(billingPeriodAt(at('2026-12-20T00:00:00.000Z'), 15), december15);

  t.strictSame(
    billingPeriodAt(at('2027-03-01T00:00:00.000Z'), 28),
    period('2027-02', '2027-02-28T00:00:00.000Z', '2027-03-28T00:00:00.000Z'),
    'day 28: every month has it',
  );
});

t.test('periods tile time: each instant is in its period, each period ends where the next starts', async (t) => {
  for (const startDay of [1, 2, 15, 28]) {
    let bad = 0;
    let previous: BillingPeriod | null = null;
    // Every 7 hours and a bit over four years, crossing leap and non-leap Februaries.
    for (let ms = at('2026-11-20T00:00:00.000Z'); ms < at('2031-01-10T00:00:00.000Z'); ms += 7 * 3_600_000 + 13_579) {
      const p = billingPeriodAt(ms, startDay);
      if (!(p.startMs <= ms && ms < p.endMs)) bad += 1;
      if (new Date(p.startMs).getUTCDate() !== startDay || new Date(p.endMs).getUTCDate() !== startDay) bad += 1;
      if (p.label !== new Date(p.startMs).toISOString().slice(0, 7)) bad += 1;
      if (previous && previous.label !== p.label && previous.endMs !== p.startMs) bad += 1;
      if (previous && previous.label === p.label && (previous.startMs !== p.startMs || previous.endMs !== p.endMs)) bad += 1;
      if (JSON.stringify(billingPeriodNamed(p.label, startDay)) !== JSON.stringify(p)) bad += 1;
      previous = p;
    }
    t.equal(bad, 0, `start day ${startDay}`);
  }
});

t.test('billingPeriodNamed: labels parsed back; anything but YYYY-MM is null', async (t) => {
  t.strictSame(billingPeriodNamed('2026-11', 1), period('2026-11', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'));
  t.strictSame(billingPeriodNamed('2026-11', 15), period('2026-11', '2026-11-15T00:00:00.000Z', '2026-12-15T00:00:00.000Z'));
  t.strictSame(billingPeriodNamed('2026-12', 1), period('2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'));
  t.strictSame(billingPeriodNamed('2026-12', 15), period('2026-12', '2026-12-15T00:00:00.000Z', '2027-01-15T00:00:00.000Z'));
  t.strictSame(billingPeriodNamed('2027-01', 28), period('2027-01', '2027-01-28T00:00:00.000Z', '2027-02-28T00:00:00.000Z'));
  for (const label of [
    '2026-13',
    '2026-00',
    '2026-1',
    '26-11',
    '2026-11-01',
    ' 2026-11',
    '2026-11 ',
    '2026-11\n',
    '2026/11',
    '202611',
    '',
    'abcd-ef',
    '2026-1a',
    '-2026-11',
    '12026-11',
    'current',
  ]) {
    t.equal(billingPeriodNamed(label, 1), null, JSON.stringify(label));
  }
});
