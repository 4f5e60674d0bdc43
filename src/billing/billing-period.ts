// Billing periods: calendar months in UTC, starting on a configurable day (1 to 28, so every month
// has it). A period is named after the month it starts in ('2026-11' runs from the start day of
// November to the start day of December).

export interface BillingPeriod {
  /** 'YYYY-MM' of the month the period starts in. */
  label: string;
  startMs: number;
  /** When the next period starts: allowances and spend caps reset then. */
  endMs: number;
}

export function billingPeriodAt(nowMs: number, startDay: number): BillingPeriod {
  const now = new Date(nowMs);
  let year = now.getUTCFullYear();
  let month = now.getUTCMonth();
  if (nowMs < Date.UTC(year, month, startDay)) month -= 1;
  if (month < 0) {
    month = 11;
    year -= 1;
  }
  return periodStarting(year, month, startDay);
}

/** The period named `label` ('YYYY-MM'); null when the label is not a month. */
export function billingPeriodNamed(label: string, startDay: number): BillingPeriod | null {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(label);
  // Date.UTC reads years 0 to 99 as 1900 to 1999: nothing was metered before 1970 anyway.
  if (!match || Number(match[1]) < 1970) return null;
  return periodStarting(Number(match[1]), Number(match[2]) - 1, startDay);
}

function periodStarting(year: number, month: number, startDay: number): BillingPeriod {
  const startMs = Date.UTC(year, month, startDay);
  const endMs = Date.UTC(year, month + 1, startDay);
  return { label: `${year}-${String(month + 1).padStart(2, '0')}`, startMs, endMs };
}
