// How the usage page writes its figures: audio in hours, money in currency units, days and dates in
// UTC (billing periods are UTC months), all from the ledger's integers (ms, millionths).
import { MICROS_PER_UNIT, MS_PER_HOUR } from '../billing/billing-terms.js';

export const MS_PER_DAY = 86_400_000;

/** Audio under this is written in seconds: a first test's few seconds would read '0.00 h'. */
const SECONDS_BELOW_MS = 36_000;

/** Audio in hours to two decimals ('1.25 h'), or in seconds below 0.01 h ('2.0 s'); none is '0 h'. */
export function hoursText(ms: number): string {
  if (ms === 0) return '0 h';
  if (ms < SECONDS_BELOW_MS) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / MS_PER_HOUR).toFixed(2)} h`;
}

/** Currency units to two decimals (the contract prices audio-hours in bare currency units). */
export function moneyText(micros: number): string {
  return (micros / MICROS_PER_UNIT).toFixed(2);
}

const DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** '1 Dec 2026' (UTC). */
export function dateText(ms: number): string {
  return DATE.format(ms);
}

/** '12 Nov' of a 'YYYY-MM-DD' day. */
export function dayText(day: string): string {
  return DAY.format(Date.parse(`${day}T00:00:00.000Z`));
}

/** Every UTC day ('YYYY-MM-DD') from `startMs` to the one holding `lastMs`, in order. */
export function daysBetween(startMs: number, lastMs: number): string[] {
  const days: string[] = [];
  for (let at = startMs; at <= lastMs; at += MS_PER_DAY) days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}
