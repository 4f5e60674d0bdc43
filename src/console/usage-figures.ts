// How the usage page writes its figures: audio in hours, money in currency units, days and dates in
// UTC (billing periods are UTC months), all from the ledger's integers (ms, millionths).
import { MICROS_PER_UNIT, MS_PER_HOUR } from '../billing/billing-terms.js';

export const MS_PER_DAY = 86_400_000;

/**
 * Audio is written in one unit per table, chart or sentence (never '22.2 s' beside '0.01 h'): seconds
 * while its largest figure is at most a tenth of an hour (two decimals of an hour would say too
 * little), hours above that.
 */
export type AudioUnit = 's' | 'h';
const SECONDS_UP_TO_MS = MS_PER_HOUR / 10;

/** The unit of a group of figures, chosen by the largest. */
export function audioUnit(...ms: readonly number[]): AudioUnit {
  return Math.max(0, ...ms) > SECONDS_UP_TO_MS ? 'h' : 's';
}

/** Audio in `unit`: seconds to one decimal ('22.2 s'), hours to two ('1.25 h'; a little above none is 'under 0.01 h'). */
export function audioText(ms: number, unit: AudioUnit): string {
  if (unit === 's') return `${(ms / 1000).toFixed(1)} s`;
  const hours = (ms / MS_PER_HOUR).toFixed(2);
  return ms > 0 && hours === '0.00' ? 'under 0.01 h' : `${hours} h`;
}

/** One figure on its own, in the unit its size calls for. */
export function hoursText(ms: number): string {
  return audioText(ms, audioUnit(ms));
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
